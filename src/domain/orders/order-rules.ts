import { MICRO, type Micro } from '../money/micro';
import type { BookLevel, Depth } from '../trading/price-service';

export type OrderSide = 'BUY' | 'SELL';
/** The unit an order is sized in: dollars to spend (a BUY only) or shares (to sell, or to buy). */
export type SizedBy = 'amount' | 'shares';
export type TimeInForce = 'GTC' | 'GTD' | 'IOC' | 'FOK';
export type OrderState = 'open' | 'partially_filled' | 'filled' | 'cancelled' | 'expired' | 'rejected';

export const OPEN_STATES: readonly OrderState[] = ['open', 'partially_filled'];

/**
 * The price an order fills at now, or null when the market does not reach its limit: a buy takes the ask when
 * ask <= limit, a sell the bid when bid >= limit. Never worse than the limit, by construction.
 */
export function crossingPrice(side: OrderSide, limitMicro: Micro, quote: { bidMicro: Micro; askMicro: Micro }): Micro | null {
  if (side === 'BUY') return quote.askMicro > 0n && quote.askMicro <= MICRO && quote.askMicro <= limitMicro ? quote.askMicro : null;
  return quote.bidMicro > 0n && quote.bidMicro <= MICRO && quote.bidMicro >= limitMicro ? quote.bidMicro : null;
}

/** The unit of an order of `side` sized by `sizedBy` (absent: its side's own unit, dollars of a buy, shares of a sell). */
export const unitOf = (side: OrderSide, sizedBy?: SizedBy): SizedBy => sizedBy ?? (side === 'BUY' ? 'amount' : 'shares');

/**
 * What one fill takes: `size` in the order's own unit (dollars of an amount buy, shares otherwise) at one price; a buy
 * sized in shares also carries what they cost (`cashMicro`).
 */
export interface Take {
  sizeMicro: Micro;
  priceMicro: Micro;
  cashMicro?: Micro;
}

/**
 * The cash a buy of `sharesMicro` shares at no more than `limitMicro` can cost at worst, which is what it reserves:
 * ceil(shares × limit), the rounding every buy sized in shares pays (fills.ts buySharesFill), so a reservation always
 * covers a fill of those shares at any price within the limit.
 */
export function sharesCostCeiling(sharesMicro: Micro, limitMicro: Micro): Micro {
  return (sharesMicro * limitMicro + MICRO - 1n) / MICRO;
}

/**
 * The cash a resting buy holds for its unfilled `unfilledMicro` (in its unit): the dollars themselves of a buy sized by
 * amount, sharesCostCeiling(unfilled, limit) of one sized in shares. A buy's reservation is always exactly this.
 */
export function buyReservation(sizedBy: SizedBy, unfilledMicro: Micro, limitMicro: Micro): Micro {
  return sizedBy === 'shares' ? sharesCostCeiling(unfilledMicro, limitMicro) : unfilledMicro;
}

/**
 * What a resting buy's fill of `takenMicro` (in its unit) frees of the `heldMicro` it reserves for `unfilledMicro`: all
 * but the reservation of what stays unfilled (buyReservation), so the reservation stays exact after the fill. A buy by
 * amount frees what it spends; one in shares frees what the filled shares reserved, which the fill spends and whose
 * difference from their cost returns to available cash (a fill costing a micro-dollar more than its shares freed, from
 * the rounding of two ceilings, takes that micro-dollar from available cash, as any buy pays its rounding).
 */
export function buyRelease(sizedBy: SizedBy, heldMicro: Micro, unfilledMicro: Micro, takenMicro: Micro, limitMicro: Micro): Micro {
  if (sizedBy === 'amount') return takenMicro < heldMicro ? takenMicro : heldMicro;
  const keep = buyReservation(sizedBy, unfilledMicro - takenMicro, limitMicro);
  const free = heldMicro - keep;
  return free < 0n ? 0n : free;
}

/**
 * The fill rule. Without published depth the whole remainder fills at the crossing price. With depth (the CLOB
 * book, best level first) the order walks the levels at or better than its limit and takes no more than they
 * show; its price is the volume-weighted average of what it took, rounded against the trader (up for a buy, down
 * for a sell) — still never worse than the limit, since every level taken is within it. The levels taken are
 * consumed from `depth`, always from the best level on (so orders filled from one book share it, oldest first, and
 * what they left is the book less the shares taken per side). null: nothing fills.
 */
export function take(
  side: OrderSide,
  limitMicro: Micro,
  remainingMicro: Micro,
  quote: { bidMicro: Micro; askMicro: Micro; depth?: Depth },
  sizedBy?: SizedBy,
): Take | null {
  const price = crossingPrice(side, limitMicro, quote);
  if (price === null || remainingMicro <= 0n) return null;
  if (side === 'BUY' && unitOf(side, sizedBy) === 'shares') return takeShares(limitMicro, remainingMicro, price, quote.depth);
  if (!quote.depth) return { sizeMicro: remainingMicro, priceMicro: price };
  const levels = side === 'BUY' ? quote.depth.asks : quote.depth.bids;
  let cash = 0n;
  let shares = 0n;
  let left = remainingMicro;
  for (const level of levels) {
    if (left <= 0n) break;
    if (level.sizeMicro <= 0n) continue;
    if (side === 'BUY' ? level.priceMicro > limitMicro : level.priceMicro < limitMicro) break;
    if (side === 'BUY') {
      // Dollars left to spend against this level's shares.
      const levelCash = (level.sizeMicro * level.priceMicro) / MICRO;
      const spend = left < levelCash ? left : levelCash;
      if (spend > 0n) {
        const got = (spend * MICRO) / level.priceMicro;
        if (got <= 0n) break;
        cash += spend;
        shares += got;
        left -= spend;
        level.sizeMicro -= got;
      }
      // Walking on past a level leaves on it shares worth under two micro-dollars, which no buy here can take
      // whole: gone, so every take consumes a side from the top (afterTaken() rebuilds the book from that).
      if (left > 0n) level.sizeMicro = 0n;
    } else {
      const sell = left < level.sizeMicro ? left : level.sizeMicro;
      cash += (sell * level.priceMicro) / MICRO;
      shares += sell;
      left -= sell;
      level.sizeMicro -= sell;
    }
  }
  if (shares <= 0n) return null;
  if (side === 'BUY') {
    const vwap = (cash * MICRO + shares - 1n) / shares;
    return { sizeMicro: cash, priceMicro: vwap > limitMicro ? limitMicro : vwap };
  }
  const vwap = (cash * MICRO) / shares;
  return { sizeMicro: shares, priceMicro: vwap < limitMicro ? limitMicro : vwap };
}

/**
 * take() of a buy sized in shares: the shares at the crossing price without depth, else the ask levels within the limit
 * walked from the best, no more than each shows. They cost ceil(Σ shares × price) over the levels taken (one rounding,
 * against the buyer, as buySharesFill), never above sharesCostCeiling(shares, limit); the price is that cost's average
 * per share, rounded up and capped at the limit.
 */
function takeShares(limitMicro: Micro, remainingMicro: Micro, price: Micro, depth: Depth | undefined): Take | null {
  if (!depth) return { sizeMicro: remainingMicro, priceMicro: price, cashMicro: sharesCostCeiling(remainingMicro, price) };
  let exact = 0n; // Σ shares × price, in micro-shares × micro-dollars
  let shares = 0n;
  let left = remainingMicro;
  for (const level of depth.asks) {
    if (left <= 0n) break;
    if (level.sizeMicro <= 0n) continue;
    if (level.priceMicro > limitMicro) break;
    const got = left < level.sizeMicro ? left : level.sizeMicro;
    exact += got * level.priceMicro;
    shares += got;
    left -= got;
    level.sizeMicro -= got;
  }
  if (shares <= 0n) return null;
  const cash = (exact + MICRO - 1n) / MICRO;
  const vwap = (cash * MICRO + shares - 1n) / shares;
  return { sizeMicro: shares, priceMicro: vwap > limitMicro ? limitMicro : vwap, cashMicro: cash };
}

/** A deep copy of a book, so one price change's fills consume their own copy and never a cached quote's. */
export function copyDepth(depth: Depth | undefined): Depth | undefined {
  if (!depth) return undefined;
  const copy = (ls: BookLevel[]) => ls.map((l) => ({ priceMicro: l.priceMicro, sizeMicro: l.sizeMicro }));
  return { bids: copy(depth.bids), asks: copy(depth.asks) };
}

/**
 * The book as it stands after `bidTaken` / `askTaken` shares were taken from it: take() always consumes a side from
 * its best level on, so what any sequence of takes left is the side with that many shares removed from the top.
 * A fresh copy, to be consumed by this transaction's takes.
 */
export function afterTaken(depth: Depth, bidTaken: Micro, askTaken: Micro): Depth {
  const cut = (ls: BookLevel[], taken: Micro) => {
    let left = taken;
    return ls.map((l) => {
      const off = left < l.sizeMicro ? left : l.sizeMicro;
      left -= off;
      return { priceMicro: l.priceMicro, sizeMicro: l.sizeMicro - off };
    });
  };
  return { bids: cut(depth.bids, bidTaken), asks: cut(depth.asks, askTaken) };
}

/** Shares shown on one side of a book. */
export function sharesShown(levels: BookLevel[]): Micro {
  return levels.reduce((sum, l) => sum + l.sizeMicro, 0n);
}

/**
 * What becomes of a new order given what can fill now (`filled` of `size`, in the order's unit): the rest of a
 * GTC/GTD order rests; IOC cancels the rest (nothing filled: cancelled); FOK fills only whole, else is rejected.
 */
export function onPlacement(tif: TimeInForce, fillable: Micro, size: Micro): 'fill' | 'fill-rest' | 'fill-cancel' | 'rest' | 'cancel' | 'reject' {
  if (fillable >= size) return 'fill';
  if (tif === 'FOK') return 'reject';
  if (fillable > 0n) return tif === 'IOC' ? 'fill-cancel' : 'fill-rest';
  if (tif === 'GTC' || tif === 'GTD') return 'rest';
  return 'cancel';
}
