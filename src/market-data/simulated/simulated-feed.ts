import type { Clock } from '../../clock';
import { MICRO, type Micro } from '../../domain/money/micro';
import {
  FeedError,
  type FeedMarket,
  type FeedNewsItem,
  type FeedQuote,
  type FeedStatus,
  type HistoryRange,
  type MarketFeed,
  type MarketListing,
  type MarketStats,
  type MarketStatus,
  type NewsQuery,
  type PricePoint,
  type Winner,
} from '../feed';
import { candidateRange, marketSpec, parseMarketRef, parseTokenId, SIM_EPOCH_MS, SPAWN_MS, VOID_RATE, type CatalogParams, type SimMarketSpec } from './catalog';
import { InformedPath, newsEvents, newsIdOf, type NewsEvent } from './information';
import { newsText } from './news-text';
import { CATEGORIES, type Category } from './questions';
import { uniform } from './random';
import { LruPathCache, MarketPath, type VenuePath } from './price-path';
import { EventPath, winnerIndex } from './event-path';
import { marketDraws, type MarketDraws, type VenueSeal } from './venue-seal';
import type { NewsInPrice } from '../../domain/replay/replay-suite';

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

/** Dollars traded on the market by a time: the life's volume along a concave curve (0 before it opens). */
function volumeAt(spec: SimMarketSpec, tMs: number): number {
  if (tMs <= spec.createdAtMs) return 0;
  const elapsed = Math.min(1, (Math.min(tMs, spec.endAtMs) - spec.createdAtMs) / (spec.endAtMs - spec.createdAtMs));
  return Math.round(spec.finalVolume * Math.pow(elapsed, 0.8) * 100) / 100;
}

/** The draws of the trading figures (random.ts: a stream of their own beside the catalog's 1 and 4 and the news' 11). */
const S_STATS = 7;
const DAY_MS = 86_400_000;
/** The simulated venue's price step: 0.001. */
const TICK_MICRO = 1_000n;

export interface SimState {
  status: MarketStatus;
  /** YES probability now (the final one once ended). */
  pYes: number;
  winner: Winner | null;
  volume: number;
}

/** A news event with the keys that order it: newest first by time, then by id. */
interface PlacedEvent {
  spec: SimMarketSpec;
  event: NewsEvent;
  id: string;
}

const newestFirst = (a: PlacedEvent, b: PlacedEvent): number => b.event.tMs - a.event.tMs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * The embedded venue (MARKET_FEED=simulated): a deterministic catalog whose state at any moment is a
 * pure function of SIM_SEED, SIM_SPEED, SIM_INFORMATION, the venue's secret and the clock, so restarts, replicas
 * and tests with the same secret all agree. The catalog is public (the seed's); price paths, news and outcomes are
 * sealed under the secret (venue-seal.ts). With information on, prices follow a hidden probability moved by
 * published news (information.ts).
 */
export class SimulatedFeed implements MarketFeed {
  readonly source = 'simulated' as const;
  readonly params: CatalogParams;
  /** SIM_INFORMATION: hidden probabilities, news, and prices that lag them. */
  readonly information: boolean;
  private readonly paths: LruPathCache<VenuePath>;
  /** Each event member's own path: its strength, before the event's shares are taken (event-path.ts). */
  private readonly strengths: LruPathCache<VenuePath>;
  private readonly specs = new Map<number, SimMarketSpec>();
  private readonly events = new Map<number, NewsEvent[]>();
  private readonly draws = new Map<number, MarketDraws>();
  private readonly seal: VenueSeal;
  /**
   * The one category this venue lists (a replay suite's episode, issue 52 item 5), or null for every category. The
   * catalog, paths and outcomes are the whole venue's (an event's members share its category); only what is shown is
   * narrowed: listings, lookups, quotes, history, news and the next news or resolution a stepped run moves to.
   */
  readonly category: Category | null;
  /** With information on, which news a price step catches up with (information.ts): 'published' but for suite-v1 and suite-v2. */
  readonly newsInPrice: NewsInPrice;

  constructor(
    opts: { seed: number; speed: number; information?: boolean; seal: VenueSeal; category?: string | null; newsInPrice?: NewsInPrice },
    private readonly clock: Clock,
  ) {
    this.params = { seed: opts.seed, speed: opts.speed };
    this.information = opts.information ?? false;
    this.newsInPrice = opts.newsInPrice ?? 'published';
    this.seal = opts.seal;
    this.category = categoryOf(opts.category ?? null);
    const params = this.params;
    const own = this.information
      ? (spec: SimMarketSpec) => new InformedPath(params, spec, this.newsEventsOf(spec), this.drawsOf(spec), this.newsInPrice)
      : (spec: SimMarketSpec) => new MarketPath(params, spec, this.drawsOf(spec));
    this.strengths = new LruPathCache<VenuePath>(own, 2000);
    this.paths = new LruPathCache<VenuePath>((spec) => (spec.event ? new EventPath(spec, this.membersOf(spec), (m) => this.strengths.get(m)) : own(spec)));
  }

  /** The specs of every member of a market's event, in order (just the market when it is on its own). */
  membersOf(spec: SimMarketSpec): SimMarketSpec[] {
    if (!spec.event) return [spec];
    return Array.from({ length: spec.event.size }, (_, i) => this.spec(spec.event!.leader + i));
  }

  /** A market's sealed draws: its price steps' seed, its news and its outcome draws. */
  drawsOf(spec: SimMarketSpec): MarketDraws {
    let d = this.draws.get(spec.k);
    if (!d) {
      d = marketDraws(this.seal, this.params.seed, this.params.speed, spec.k, spec.resolveAtMs);
      if (this.draws.size > 20_000) this.draws.clear();
      this.draws.set(spec.k, d);
    }
    return d;
  }

  /** A market's news events, oldest first (none with information off). */
  newsEventsOf(spec: SimMarketSpec): NewsEvent[] {
    if (!this.information) return [];
    let e = this.events.get(spec.k);
    if (!e) {
      e = newsEvents(this.drawsOf(spec), spec);
      if (this.events.size > 20_000) this.events.clear();
      this.events.set(spec.k, e);
    }
    return e;
  }

  /** The hidden YES probability at a time (information on), else null: the truth the price lags. */
  hiddenProbabilityAt(spec: SimMarketSpec, tMs: number): number | null {
    if (!this.information) return null;
    const path = this.paths.get(spec);
    return path instanceof EventPath ? path.hiddenAt(tMs) : path instanceof InformedPath ? path.hiddenAt(tMs) : null;
  }

  /** Whether the venue shows a market: every one, or those of its category. */
  lists(spec: SimMarketSpec): boolean {
    return this.category === null || spec.category === this.category;
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
    const volume = volumeAt(spec, tMs);
    if (tMs < spec.endAtMs) return { status: 'active', pYes, winner: null, volume };
    if (tMs < spec.resolveAtMs) return { status: 'closed', pYes, winner: null, volume };
    return { status: 'resolved', pYes, winner: this.winnerOf(spec), volume };
  }

  /**
   * Void at VOID_RATE, else YES with the final YES probability (information off: the final price, which makes
   * calibration meaningful; on: the final hidden probability, which the price only approaches).
   */
  winnerOf(spec: SimMarketSpec): Winner {
    if (spec.event) {
      // One draw of the event's leader for the whole event: all void together, or exactly one member wins.
      const leader = this.drawsOf(this.spec(spec.event.leader));
      if (leader.voidDraw < VOID_RATE) return 'VOID';
      return winnerIndex(
        this.membersOf(spec).map((m) => this.paths.get(m).outcomeProbability()),
        leader.winnerDraw,
      ) === spec.event.index
        ? 'YES'
        : 'NO';
    }
    const draws = this.drawsOf(spec);
    if (draws.voidDraw < VOID_RATE) return 'VOID';
    return draws.winnerDraw < this.paths.get(spec).outcomeProbability() ? 'YES' : 'NO';
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
      stats: this.statsAt(spec, state, tMs, book.yes.midMicro),
    };
  }

  /**
   * The venue's trading figures: 24 h volume from the same volume curve; open interest a share of the volume traded so far
   * (15–45 %, a draw of its own that says nothing of the outcome), none once resolved (the positions are paid); the last
   * trade at the YES mid on the tick; a tick of 0.001 (the venue quotes in tenths of a cent) and orders from one share.
   */
  private statsAt(spec: SimMarketSpec, state: SimState, tMs: number, yesMid: Micro): MarketStats {
    const share = 0.15 + 0.3 * uniform(this.params.seed, S_STATS, spec.k);
    return {
      volume24h: Math.round((state.volume - volumeAt(spec, tMs - DAY_MS)) * 100) / 100,
      openInterest: state.status === 'resolved' ? 0 : Math.round(state.volume * share * 100) / 100,
      lastTradePriceMicro: state.status === 'resolved' ? null : ((yesMid + TICK_MICRO / 2n) / TICK_MICRO) * TICK_MICRO,
      tickSizeMicro: TICK_MICRO,
      minOrderShares: 1,
    };
  }

  async listMarkets(): Promise<MarketListing> {
    const now = this.clock.now().getTime();
    const { from, to } = candidateRange(this.params, now);
    const markets: FeedMarket[] = [];
    for (let k = from; k <= to; k++) {
      const spec = this.spec(k);
      if (spec.createdAtMs > now || spec.resolveAtMs <= now || !this.lists(spec)) continue;
      markets.push(this.marketAt(spec, now)!);
    }
    return { markets, complete: true, skipped: 0 };
  }

  async market(idOrSlug: string): Promise<FeedMarket | null> {
    const k = parseMarketRef(idOrSlug);
    if (k === null) return null;
    const spec = this.spec(k);
    if ((spec.id !== idOrSlug && spec.slug !== idOrSlug) || !this.lists(spec)) return null;
    return this.marketAt(spec, this.clock.now().getTime());
  }

  async quote(tokenId: string): Promise<FeedQuote> {
    const ref = parseTokenId(this.params, tokenId);
    if (!ref) throw new FeedError('unknown-token', 'The simulated venue has no such token.');
    const now = this.clock.now();
    const spec = this.spec(ref.k);
    const state = this.lists(spec) ? this.stateAt(spec, now.getTime()) : null;
    if (!state) throw new FeedError('unknown-token', 'The simulated venue has no such token.');
    if (state.status !== 'active') throw new FeedError('not-trading', `The market is ${state.status}.`);
    const book = bookAround(state.pYes, spec.halfSpreadMicro);
    const side = ref.outcome === 'YES' ? book.yes : book.no;
    return { tokenId, ...side, asOf: now };
  }

  async history(tokenId: string, range: HistoryRange): Promise<PricePoint[]> {
    const ref = parseTokenId(this.params, tokenId);
    if (!ref || !this.lists(this.spec(ref.k))) throw new FeedError('unknown-token', 'The simulated venue has no such token.');
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

  /**
   * The first news item published after `afterMs` and at or before `untilMs`, by time (null: none). A replay run's
   * advance to the next news (issue 35 item 2) steps its clock there.
   */
  nextNewsAt(afterMs: number, untilMs: number): number | null {
    let best: number | null = null;
    this.eachAliveIn(afterMs, untilMs, (spec) => {
      for (const event of this.newsEventsOf(spec)) {
        if (event.tMs > afterMs && event.tMs <= untilMs && (best === null || event.tMs < best)) best = event.tMs;
      }
    });
    return best;
  }

  /** The first resolution published after `afterMs` and at or before `untilMs` (null: none). */
  nextResolutionAt(afterMs: number, untilMs: number): number | null {
    let best: number | null = null;
    this.eachAliveIn(afterMs, untilMs, (spec) => {
      if (spec.resolveAtMs > afterMs && spec.resolveAtMs <= untilMs && (best === null || spec.resolveAtMs < best)) best = spec.resolveAtMs;
    });
    return best;
  }

  /** Every market that exists at some moment of (fromMs, toMs] and is not yet resolved at fromMs. */
  private eachAliveIn(fromMs: number, toMs: number, fn: (spec: SimMarketSpec) => void): void {
    const { from } = candidateRange(this.params, fromMs);
    const { to } = candidateRange(this.params, toMs);
    for (let k = from; k <= to; k++) {
      const spec = this.spec(k);
      if (spec.createdAtMs <= toMs && spec.resolveAtMs > fromMs && this.lists(spec)) fn(spec);
    }
  }

  status(): FeedStatus {
    const info = this.information ? ', with information' : '';
    // No seed here (issue 49): the venue's outcomes are sealed, and /ready is public.
    return { state: 'up', detail: `simulated venue (sealed: get_venue_commitments; speed ${this.params.speed}x${info})` };
  }

  /**
   * News published by now, newest first. Across markets, it looks back one window of time at a time (news
   * in a window can only come from markets alive in it) and widens the window until the page is full or the
   * venue's start (or `sinceMs`) is reached, so a page costs a few thousand catalog entries, not the history.
   */
  async news(q: NewsQuery): Promise<FeedNewsItem[]> {
    if (!this.information) return [];
    const top = Math.min(this.clock.now().getTime(), q.untilMs ?? Infinity, q.before?.tMs ?? Infinity);
    const floor = Math.max(q.sinceMs ?? -Infinity, SIM_EPOCH_MS - 1);
    const before = q.before;
    const found: PlacedEvent[] = [];
    const collect = (spec: SimMarketSpec, lo: number, hi: number) => {
      for (const event of this.newsEventsOf(spec)) {
        if (event.tMs <= lo || event.tMs > hi) continue;
        const id = newsIdOf(spec.id, event.j);
        if (before && event.tMs === before.tMs && id >= before.id) continue;
        found.push({ spec, event, id });
      }
    };
    if (q.marketId !== undefined) {
      const k = parseMarketRef(q.marketId);
      const spec = k === null ? null : this.spec(k);
      if (spec?.id === q.marketId && this.lists(spec)) collect(spec, floor, top);
    } else {
      let hi = top;
      let span = ((q.limit + 1) * SPAWN_MS) / this.params.speed;
      while (hi > floor) {
        const lo = Math.max(floor, hi - span);
        const { from } = candidateRange(this.params, lo);
        const { to } = candidateRange(this.params, hi);
        for (let k = from; k <= to; k++) {
          const spec = this.spec(k);
          if (spec.createdAtMs <= hi && spec.endAtMs >= lo && this.lists(spec)) collect(spec, lo, hi);
        }
        if (found.length >= q.limit) break;
        hi = lo;
        span *= 2;
      }
    }
    return found
      .sort(newestFirst)
      .slice(0, q.limit)
      .map(({ spec, event, id }) => ({
        id,
        marketId: spec.id,
        question: spec.question,
        publishedAt: new Date(event.tMs),
        ...newsText(spec.question, spec.category, event.kindDraw, event.report),
      }));
  }
}

/** A category the catalogue has, or null; anything else is a programming error (a suite names catalogue categories). */
function categoryOf(name: string | null): Category | null {
  if (name === null) return null;
  const found = CATEGORIES.find((c) => c === name);
  if (!found) throw new Error(`The simulated venue has no category ${name}: one of ${CATEGORIES.join(', ')}.`);
  return found;
}
