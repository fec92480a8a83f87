import { MICRO, type Micro } from '../money/micro';
import type { BookLevel, Depth } from './price-service';

/**
 * The pricer of a venue that publishes a book (the mirrored CLOB, the simulated venue): a market order walks the levels
 * best first at their prices and sizes, and what it took is its fill. Pure and exact (micro-units throughout), so the
 * one execution engine can call it per venue, and a quote and a trade price from the same arithmetic.
 *
 * Rounding always falls on the trader, never the venue, and reproduces the one-level rules of fills.ts exactly:
 * - A BUY sized by `amount` spends exactly that amount (fee included) while the book covers it, receiving the shares
 *   each level's all-in price allows, floored to the micro-share.
 * - A BUY sized by `shares` receives exactly those shares and pays ceil(Σ shares × price) plus the fee.
 * - A SELL of shares receives round-half-up(Σ shares × price) less the fee.
 * - The fill's `price` is the volume-weighted average of the levels taken (up for a buy, down for a sale), so it lies
 *   between the best and the worst level reached and quantity × price is the book's cash to the micro-dollar.
 */

/** Shares on the one level of a venue that publishes no sizes (a bare best price): a fill there is not limited. */
export const UNLIMITED_SHARES = 10n ** 30n;

/**
 * A venue's taker fee, the shape Polymarket publishes (its fee docs): rate × min(price, 1 − price) per share, so a fee
 * is smallest near certainty. `rateBps` in basis points (100 = 1 %); the fee is rounded up to the micro-dollar.
 */
export interface FeeSchedule {
  rateBps: number;
}

export const NO_FEE: FeeSchedule = { rateBps: 0 };

export interface WalkIntent {
  side: 'BUY' | 'SELL';
  /** A BUY by dollars to spend (fee included) or by shares; a SELL is always by shares. */
  sizedBy: 'amount' | 'shares';
  sizeMicro: Micro;
  /** The worst price per share the intent accepts (BUY: highest, SELL: lowest); levels beyond it are not taken. */
  limitMicro?: Micro;
  /** Immediate-or-cancel: take what the book shows and leave the rest, instead of refusing the whole. */
  partial?: boolean;
}

export interface LevelTaken {
  priceMicro: Micro;
  sharesMicro: Micro;
}

export interface BookFill {
  levels: LevelTaken[];
  sharesMicro: Micro;
  /** The book's side of the fill: what a buy pays for its shares, or a sale's gross proceeds (fee not included). */
  bookCashMicro: Micro;
  feeMicro: Micro;
  /** What the account pays (BUY: book cash + fee) or receives (SELL: book cash − fee). */
  cashMicro: Micro;
  /** Volume-weighted average price of the levels taken, rounded against the trader. */
  priceMicro: Micro;
  bestMicro: Micro;
  worstMicro: Micro;
  /** How far the average is from the best price, against the trader (≥ 0). */
  slippageMicro: Micro;
  /** False when the book (within the limit) showed less than the intent asked and the intent was partial. */
  complete: boolean;
}

/** What the book shows within the intent's limit, for a refusal naming the depth available. */
export interface DepthShown {
  sharesMicro: Micro;
  /** What those shares cost (BUY, fee included) or pay (SELL, before the fee). */
  cashMicro: Micro;
  worstMicro: Micro | null;
}

/** `too-small`: the amount buys no micro-share at the best level. */
export type WalkResult = { kind: 'fill'; fill: BookFill } | { kind: 'short'; shown: DepthShown } | { kind: 'too-small' };

/** The side of `depth` an intent takes from: asks for a buy, bids for a sale. */
export const levelsFor = (side: 'BUY' | 'SELL', depth: Depth): BookLevel[] => (side === 'BUY' ? depth.asks : depth.bids);

// Fees are computed in units of µ$·share⁻¹ × 10⁴ (basis points), so a level's all-in price is exact.
const BPS = 10_000n;
const EXACT = MICRO * BPS;

const feePerShare = (priceMicro: Micro, fee: FeeSchedule): Micro => {
  const distance = priceMicro < MICRO - priceMicro ? priceMicro : MICRO - priceMicro;
  return BigInt(fee.rateBps) * (distance < 0n ? 0n : distance);
};

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/** The levels an intent may take, best first, stopping at its limit and skipping empty ones. */
function reachable(levels: BookLevel[], intent: WalkIntent): BookLevel[] {
  const out: BookLevel[] = [];
  for (const l of levels) {
    if (intent.limitMicro !== undefined && (intent.side === 'BUY' ? l.priceMicro > intent.limitMicro : l.priceMicro < intent.limitMicro)) break;
    if (l.sizeMicro > 0n) out.push(l);
  }
  return out;
}

/**
 * Walks one side of a book (best level first) for `intent`. Answers the fill, or `short` with the depth shown when the
 * book within the limit cannot fill the whole intent and the intent is not partial (nothing is taken then). A partial
 * intent that reaches nothing is `short` too.
 */
export function walkBook(levels: BookLevel[], intent: WalkIntent, fee: FeeSchedule = NO_FEE): WalkResult {
  if (intent.sizeMicro <= 0n) throw new RangeError('size must be above 0');
  if (intent.side === 'SELL' && intent.sizedBy !== 'shares') throw new RangeError('a sale is sized by shares');
  if (!Number.isInteger(fee.rateBps) || fee.rateBps < 0 || fee.rateBps > 10_000) throw new RangeError('fee rate outside 0..10000 bps');
  const usable = reachable(levels, intent);
  const taken: LevelTaken[] = [];
  let left = intent.sizeMicro;
  if (intent.side === 'BUY' && intent.sizedBy === 'amount') {
    left = intent.sizeMicro * EXACT; // the budget in µ$ × 10¹⁰, so every level's all-in cost subtracts exactly
    for (const l of usable) {
      if (left <= 0n) break;
      const allIn = l.priceMicro * BPS + feePerShare(l.priceMicro, fee); // µ$ per share × 10⁴
      const whole = l.sizeMicro * allIn;
      if (whole <= left) {
        taken.push({ priceMicro: l.priceMicro, sharesMicro: l.sizeMicro });
        left -= whole;
        continue;
      }
      // The budget ends inside this level: the shares it pays for, floored; what is left buys no micro-share.
      const shares = left / allIn;
      if (shares > 0n) taken.push({ priceMicro: l.priceMicro, sharesMicro: shares });
      left = 0n;
    }
  } else {
    for (const l of usable) {
      if (left <= 0n) break;
      const shares = left < l.sizeMicro ? left : l.sizeMicro;
      taken.push({ priceMicro: l.priceMicro, sharesMicro: shares });
      left -= shares;
    }
  }
  const complete = left <= 0n;
  if (complete && taken.length === 0) return { kind: 'too-small' };
  if (taken.length === 0 || (!complete && !intent.partial)) return { kind: 'short', shown: shown(usable, intent.side, fee) };
  return { kind: 'fill', fill: priced(taken, intent, fee, complete, usable[0]!.priceMicro) };
}

/** The money of the levels taken (see the module's rounding rules). */
function priced(taken: LevelTaken[], intent: WalkIntent, fee: FeeSchedule, complete: boolean, bestMicro: Micro): BookFill {
  let shares = 0n;
  let exact = 0n; // Σ shares × price, µshares × µ$
  let feeExact = 0n; // Σ shares × fee per share, µshares × µ$ × 10⁴
  for (const t of taken) {
    shares += t.sharesMicro;
    exact += t.sharesMicro * t.priceMicro;
    feeExact += t.sharesMicro * feePerShare(t.priceMicro, fee);
  }
  const feeMicro = ceilDiv(feeExact, EXACT);
  const worstMicro = taken[taken.length - 1]!.priceMicro;
  let bookCashMicro: Micro;
  let cashMicro: Micro;
  let priceMicro: Micro;
  if (intent.side === 'BUY') {
    priceMicro = ceilDiv(exact, shares);
    if (intent.sizedBy === 'amount' && complete) {
      // The whole amount is spent, as a one-level buy spends it: what the floor of shares leaves (under a micro-dollar a
      // level) stays with the book's cash, never returns as change.
      cashMicro = intent.sizeMicro;
      bookCashMicro = cashMicro - feeMicro;
    } else {
      bookCashMicro = ceilDiv(exact, MICRO);
      cashMicro = bookCashMicro + feeMicro;
    }
  } else {
    priceMicro = exact / shares;
    bookCashMicro = (exact * 2n + MICRO) / (2n * MICRO);
    cashMicro = bookCashMicro > feeMicro ? bookCashMicro - feeMicro : 0n;
  }
  return {
    levels: taken,
    sharesMicro: shares,
    bookCashMicro,
    feeMicro,
    cashMicro,
    priceMicro,
    bestMicro,
    worstMicro,
    slippageMicro: intent.side === 'BUY' ? priceMicro - bestMicro : bestMicro - priceMicro,
    complete,
  };
}

function shown(usable: BookLevel[], side: 'BUY' | 'SELL', fee: FeeSchedule): DepthShown {
  let shares = 0n;
  let exact = 0n;
  for (const l of usable) {
    shares += l.sizeMicro;
    exact += l.sizeMicro * (side === 'BUY' ? l.priceMicro * BPS + feePerShare(l.priceMicro, fee) : l.priceMicro * BPS);
  }
  return { sharesMicro: shares, cashMicro: side === 'BUY' ? ceilDiv(exact, EXACT) : exact / EXACT, worstMicro: usable[usable.length - 1]?.priceMicro ?? null };
}

/**
 * One side of a book as it stands after `takenMicro` of its shares were taken: a walk always consumes a side from its
 * best level on, so what any sequence of walks left is the side with that many shares removed from the top.
 */
export function afterTaken(levels: BookLevel[], takenMicro: Micro): BookLevel[] {
  let left = takenMicro;
  const out: BookLevel[] = [];
  for (const l of levels) {
    const off = left < l.sizeMicro ? left : l.sizeMicro;
    left -= off;
    if (l.sizeMicro - off > 0n) out.push({ priceMicro: l.priceMicro, sizeMicro: l.sizeMicro - off });
  }
  return out;
}

/** The one level of a venue that quotes a best price without sizes: everything at that price. */
export const bareLevel = (priceMicro: Micro): BookLevel[] => [{ priceMicro, sizeMicro: UNLIMITED_SHARES }];
