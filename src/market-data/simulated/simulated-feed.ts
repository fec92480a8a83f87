import type { Clock } from '../../clock';
import { MICRO, type Micro } from '../../domain/money/micro';
import {
  FeedError,
  type FeedMarket,
  type FeedQuote,
  type FeedStatus,
  type HistoryRange,
  type MarketFeed,
  type MarketListing,
  type MarketStatus,
  type PricePoint,
  type Winner,
} from '../feed';
import { candidateRange, marketSpec, parseMarketRef, parseTokenId, VOID_RATE, type CatalogParams, type SimMarketSpec } from './catalog';
import { PathCache } from './price-path';

const TICK = 1000n; // 0.001 dollars
const MIN_MID = 10_000n;
const MAX_MID = 990_000n;

export interface SimBook {
  yes: { bidMicro: Micro; askMicro: Micro; midMicro: Micro };
  no: { bidMicro: Micro; askMicro: Micro; midMicro: Micro };
}

/** The book around a YES probability: mid on a 0.001 tick, a spread around it, and NO as its exact complement. */
export function bookAround(pYes: number, halfSpreadMicro: Micro): SimBook {
  let mid = BigInt(Math.round(pYes * 1000)) * TICK;
  mid = mid < MIN_MID ? MIN_MID : mid > MAX_MID ? MAX_MID : mid;
  const bid = mid - halfSpreadMicro < TICK ? TICK : mid - halfSpreadMicro;
  const ask = mid + halfSpreadMicro > MICRO - TICK ? MICRO - TICK : mid + halfSpreadMicro;
  return {
    yes: { bidMicro: bid, askMicro: ask, midMicro: mid },
    no: { bidMicro: MICRO - ask, askMicro: MICRO - bid, midMicro: MICRO - mid },
  };
}

export interface SimState {
  status: MarketStatus;
  /** YES probability now (the final one once ended). */
  pYes: number;
  winner: Winner | null;
  volume: number;
}

/**
 * The embedded venue (MARKET_FEED=simulated): a deterministic catalog whose state at any moment is a
 * pure function of SIM_SEED, SIM_SPEED and the clock, so restarts, replicas and tests all agree.
 */
export class SimulatedFeed implements MarketFeed {
  readonly source = 'simulated' as const;
  readonly params: CatalogParams;
  private readonly paths: PathCache;
  private readonly specs = new Map<number, SimMarketSpec>();

  constructor(
    opts: { seed: number; speed: number },
    private readonly clock: Clock,
  ) {
    this.params = { seed: opts.seed, speed: opts.speed };
    this.paths = new PathCache(this.params);
  }

  spec(k: number): SimMarketSpec {
    let s = this.specs.get(k);
    if (!s) {
      s = marketSpec(this.params, k);
      if (this.specs.size > 20_000) this.specs.clear();
      this.specs.set(k, s);
    }
    return s;
  }

  /** The market's state at a time; null before it exists. */
  stateAt(spec: SimMarketSpec, tMs: number): SimState | null {
    if (tMs < spec.createdAtMs) return null;
    const path = this.paths.get(spec);
    const pYes = path.probabilityAt(tMs);
    const elapsed = Math.min(1, (Math.min(tMs, spec.endAtMs) - spec.createdAtMs) / (spec.endAtMs - spec.createdAtMs));
    const volume = Math.round(spec.finalVolume * Math.pow(elapsed, 0.8) * 100) / 100;
    if (tMs < spec.endAtMs) return { status: 'active', pYes, winner: null, volume };
    if (tMs < spec.resolveAtMs) return { status: 'closed', pYes, winner: null, volume };
    return { status: 'resolved', pYes, winner: this.winnerOf(spec), volume };
  }

  /** Void at VOID_RATE, else YES with the final YES probability: what makes calibration meaningful. */
  winnerOf(spec: SimMarketSpec): Winner {
    if (spec.voidDraw < VOID_RATE) return 'VOID';
    return spec.winnerDraw < this.paths.get(spec).probabilityAt(spec.endAtMs) ? 'YES' : 'NO';
  }

  marketAt(spec: SimMarketSpec, tMs: number): FeedMarket | null {
    const state = this.stateAt(spec, tMs);
    if (!state) return null;
    const book = bookAround(state.pYes, spec.halfSpreadMicro);
    const settle = (side: 'YES' | 'NO'): Micro => (state.winner === 'VOID' ? MICRO / 2n : state.winner === side ? MICRO : 0n);
    const trading = state.status === 'active';
    const token = (side: 'YES' | 'NO') => {
      const q = side === 'YES' ? book.yes : book.no;
      return {
        tokenId: side === 'YES' ? spec.yesTokenId : spec.noTokenId,
        outcome: side,
        label: side === 'YES' ? 'Yes' : 'No',
        priceMicro: state.status === 'resolved' ? settle(side) : q.midMicro,
        bidMicro: trading ? q.bidMicro : null,
        askMicro: trading ? q.askMicro : null,
      };
    };
    return {
      id: spec.id,
      slug: spec.slug,
      question: spec.question,
      description: spec.description,
      category: spec.category,
      imageUrl: null,
      volume: state.volume,
      createdAt: new Date(spec.createdAtMs),
      endDate: new Date(spec.endAtMs),
      status: state.status,
      winner: state.winner,
      resolvedAt: state.status === 'resolved' ? new Date(spec.resolveAtMs) : null,
      tokens: [token('YES'), token('NO')],
      asOf: new Date(tMs),
    };
  }

  async listMarkets(): Promise<MarketListing> {
    const now = this.clock.now().getTime();
    const { from, to } = candidateRange(this.params, now);
    const markets: FeedMarket[] = [];
    for (let k = from; k <= to; k++) {
      const spec = this.spec(k);
      if (spec.createdAtMs > now || spec.resolveAtMs <= now) continue;
      markets.push(this.marketAt(spec, now)!);
    }
    return { markets, complete: true, skipped: 0 };
  }

  async market(idOrSlug: string): Promise<FeedMarket | null> {
    const k = parseMarketRef(idOrSlug);
    if (k === null) return null;
    const spec = this.spec(k);
    if (spec.id !== idOrSlug && spec.slug !== idOrSlug) return null;
    return this.marketAt(spec, this.clock.now().getTime());
  }

  async quote(tokenId: string): Promise<FeedQuote> {
    const ref = parseTokenId(this.params, tokenId);
    if (!ref) throw new FeedError('unknown-token', 'The simulated venue has no such token.');
    const now = this.clock.now();
    const spec = this.spec(ref.k);
    const state = this.stateAt(spec, now.getTime());
    if (!state) throw new FeedError('unknown-token', 'The simulated venue has no such token.');
    if (state.status !== 'active') throw new FeedError('not-trading', `The market is ${state.status}.`);
    const book = bookAround(state.pYes, spec.halfSpreadMicro);
    const side = ref.outcome === 'YES' ? book.yes : book.no;
    return { tokenId, ...side, asOf: now };
  }

  async history(tokenId: string, range: HistoryRange): Promise<PricePoint[]> {
    const ref = parseTokenId(this.params, tokenId);
    if (!ref) throw new FeedError('unknown-token', 'The simulated venue has no such token.');
    const spec = this.spec(ref.k);
    const nowS = Math.floor(this.clock.now().getTime() / 1000);
    const first = Math.max(range.fromS, Math.ceil(spec.createdAtMs / 1000));
    const last = Math.min(range.toS, nowS);
    const points: PricePoint[] = [];
    for (let t = Math.ceil(first / range.stepS) * range.stepS; t <= last; t += range.stepS) points.push({ t, p: this.pointAt(spec, ref.outcome, t * 1000) });
    // The latest price closes the series, so a chart ends where the market is now.
    if (last >= first && points[points.length - 1]?.t !== last) points.push({ t: last, p: this.pointAt(spec, ref.outcome, last * 1000) });
    return points;
  }

  private pointAt(spec: SimMarketSpec, side: 'YES' | 'NO', tMs: number): number {
    const state = this.stateAt(spec, tMs)!;
    if (state.status === 'resolved') {
      const w = state.winner;
      return w === 'VOID' ? 0.5 : w === side ? 1 : 0;
    }
    const book = bookAround(state.pYes, spec.halfSpreadMicro);
    return Number(side === 'YES' ? book.yes.midMicro : book.no.midMicro) / 1e6;
  }

  status(): FeedStatus {
    return { state: 'up', detail: `simulated venue (seed ${this.params.seed}, speed ${this.params.speed}x)` };
  }
}
