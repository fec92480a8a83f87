import { sigmoid, SteppedPath } from './price-path';
import type { CatalogParams, SimMarketSpec } from './catalog';
import type { MarketDraws } from './venue-seal';
import type { NewsInPrice } from '../../domain/replay/replay-suite';

/**
 * The venue with information (SIM_INFORMATION=on). Each market has a hidden YES probability that moves only
 * on seeded news events; the venue publishes every event as a news item, the price follows the hidden
 * probability with a lag and a little noise, and the outcome is drawn from the hidden probability at the end.
 * So the price is an imperfect forecast, and an agent that reads the news before the price catches up can
 * beat it. Everything is a pure function of (sealed market key, seed, speed, k, t): the news and the price steps come from
 * the market's sealed draws (venue-seal.ts), so neither can be computed before the scope's secret is revealed.
 *
 * Parameters (durations are divided by SIM_SPEED, like every duration of the venue):
 * - events: NEWS_MIN..NEWS_MAX a market, at uniform times between 3% and 97% of its life;
 * - jump: a hidden log-odds change of JUMP_MIN + JUMP_SCALE·|N(0,1)| (mean about 0.78), up or down with
 *   even odds, turned around when it would leave ±MAX_HIDDEN;
 * - report: each item names its source (NEWS_SOURCES), which states the move's direction rightly with its reliability and
 *   wrongly otherwise; UNCLEAR_SHARE of items state none; the wording's strength follows the move's size with noise;
 * - price: log-odds x caught up with the hidden log-odds h at each price step, x ← h + (x − h)·a + noise, with
 *   a = 2^(−step/halfLife) and halfLife = min(12 h, 8% of the life): an exponential catch-up whose half-life is
 *   CATCH_UP_HALF_LIFE_MS (shorter for short markets), plus noise whose stationary spread is PRICE_NOISE
 *   log-odds. h is the hidden log-odds at the step's start (NewsInPrice 'published'): the price is read between steps
 *   by interpolation (price-path.ts), so a step that caught up with news published within it would move the price
 *   toward that news before its publication.
 */

export const NEWS_MIN = 4;
export const NEWS_MAX = 8;
export const JUMP_MIN = 0.3;
export const JUMP_SCALE = 0.6;
/** Hidden log-odds stay within ±4 (a probability of 0.018..0.982). */
export const MAX_HIDDEN = 4;
export const CATCH_UP_HALF_LIFE_MS = 12 * 3_600_000;
export const CATCH_UP_LIFE_SHARE = 0.08;
export const PRICE_NOISE = 0.2;

// Where each news draw sits among the market's sealed news words: the count, the times, the jump sizes (two words
// each: Box-Muller), the directions and the kinds of story.
const W_COUNT = 0;
const W_TIME = 1;
const W_SIZE = W_TIME + NEWS_MAX;
const W_SIGN = W_SIZE + 2 * NEWS_MAX;
const W_KIND = W_SIGN + NEWS_MAX;
const W_SOURCE = W_KIND + NEWS_MAX;
const W_TRUTH = W_SOURCE + NEWS_MAX;
const W_TONE = W_TRUTH + NEWS_MAX;
const W_CLEAR = W_TONE + NEWS_MAX;

/**
 * Who reports a news item, and how often its account of the direction is right (issue 49 item 2: news that takes
 * judgement). A report states the direction of the hidden move with probability `reliability`, else the opposite one;
 * `share` is how often the source reports. Published in docs/market-data.md, so an agent may weigh its sources.
 */
export const NEWS_SOURCES = [
  { name: 'the official record', reliability: 0.97, share: 0.2 },
  { name: 'Northgate Wire', reliability: 0.9, share: 0.25 },
  { name: 'The Ledger', reliability: 0.8, share: 0.2 },
  { name: 'the Signal & Noise newsletter', reliability: 0.65, share: 0.2 },
  { name: 'an unverified social media post', reliability: 0.55, share: 0.15 },
] as const;
/** Share of items that report no direction at all (mixed or partial news), though the hidden probability still moves. */
export const UNCLEAR_SHARE = 0.15;
/** Noise (log-odds, uniform ± half this) on the size a report's wording conveys: its tone says the size by degrees, roughly. */
export const TONE_NOISE = 0.6;

/** What an item reports: its source, the direction it states (0: none) and how strongly (1 slight, 2 clear, 3 sharp). */
export interface NewsReport {
  source: number;
  stated: -1 | 0 | 1;
  strength: 1 | 2 | 3;
}

function reportOf(jump: number, u: (w: number) => number, j: number): NewsReport {
  let acc = 0;
  let source = NEWS_SOURCES.length - 1;
  for (let i = 0; i < NEWS_SOURCES.length; i++) {
    acc += NEWS_SOURCES[i]!.share;
    if (u(W_SOURCE + j) < acc) {
      source = i;
      break;
    }
  }
  const sign = jump > 0 ? 1 : -1;
  const stated = u(W_CLEAR + j) < UNCLEAR_SHARE ? 0 : u(W_TRUTH + j) < NEWS_SOURCES[source]!.reliability ? sign : -sign;
  const tone = Math.abs(jump) + (u(W_TONE + j) - 0.5) * TONE_NOISE;
  return { source, stated: stated as -1 | 0 | 1, strength: tone < 0.6 ? 1 : tone < 1.1 ? 2 : 3 };
}

/** One news event: when it is published and how it moves the hidden log-odds. */
export interface NewsEvent {
  /** Index within the market, in time order; the news item's id is `news-<marketId>-<j>`. */
  j: number;
  tMs: number;
  /** Change of the hidden log-odds (its sign is the direction the text states). */
  jump: number;
  /** Hidden log-odds after the event. */
  after: number;
  /** Picks the kind of story (a poll, an injury, a data release…) from the category's list. */
  kindDraw: number;
  /** How the item reports the move: its source, the direction it states and its strength. */
  report: NewsReport;
}

export function newsIdOf(marketId: string, j: number): string {
  return `news-${marketId}-${j}`;
}

/** The catch-up half-life of a market's price, in ms. */
export function halfLifeOf(p: CatalogParams, spec: SimMarketSpec): number {
  return Math.min(CATCH_UP_HALF_LIFE_MS / p.speed, CATCH_UP_LIFE_SHARE * (spec.endAtMs - spec.createdAtMs));
}

/** The news events of one market, oldest first: a pure function of the market's sealed draws and its public spec. */
export function newsEvents(draws: MarketDraws, spec: SimMarketSpec): NewsEvent[] {
  const u = (w: number) => draws.news(w);
  const n = NEWS_MIN + Math.min(NEWS_MAX - NEWS_MIN, Math.floor(u(W_COUNT) * (NEWS_MAX - NEWS_MIN + 1)));
  const life = spec.endAtMs - spec.createdAtMs;
  const times = Array.from({ length: n }, (_, i) => Math.floor(spec.createdAtMs + life * (0.03 + 0.94 * u(W_TIME + i)))).sort((a, b) => a - b);
  let h = draws.x0;
  return times.map((tMs, j) => {
    const normal = Math.sqrt(-2 * Math.log(u(W_SIZE + 2 * j))) * Math.cos(2 * Math.PI * u(W_SIZE + 2 * j + 1));
    const size = JUMP_MIN + JUMP_SCALE * Math.abs(normal);
    let jump = u(W_SIGN + j) < 0.5 ? size : -size;
    if (Math.abs(h + jump) > MAX_HIDDEN) jump = -jump;
    const after = Math.max(-MAX_HIDDEN, Math.min(MAX_HIDDEN, h + jump));
    jump = after - h;
    h = after;
    return { j, tMs, jump, after, kindDraw: u(W_KIND + j), report: reportOf(jump, u, j) };
  });
}

/** A market of the venue with information: hidden probability, and a price that follows it. */
export class InformedPath extends SteppedPath {
  /** The next event not yet applied to the step recursion, and the hidden log-odds so far. */
  private nextEvent = 0;
  private hidden: number;
  private readonly keep: number;
  private readonly kick: number;

  constructor(
    params: CatalogParams,
    spec: SimMarketSpec,
    readonly events: readonly NewsEvent[],
    draws: Pick<MarketDraws, 'stepNormals' | 'x0'>,
    /** Which news a step catches up with: what was out at its start, or (suite-v1, suite-v2) everything up to its end. */
    private readonly newsInPrice: NewsInPrice = 'published',
  ) {
    super(params, spec, draws);
    this.hidden = draws.x0;
    this.keep = Math.pow(2, -spec.stepMs / halfLifeOf(params, spec));
    this.kick = PRICE_NOISE * Math.sqrt(1 - this.keep * this.keep);
  }

  protected get streamKind(): string {
    return 'informed';
  }

  /** Hidden YES log-odds at a time: the start, moved by every event published by then. */
  hiddenLogOddsAt(tMs: number): number {
    let h = this.draws.x0;
    for (const e of this.events) {
      if (e.tMs > tMs) break;
      h = e.after;
    }
    return h;
  }

  hiddenAt(tMs: number): number {
    return sigmoid(this.hiddenLogOddsAt(tMs));
  }

  /**
   * Exponential catch-up with the hidden log-odds at the step's start (its end under 'step-end'), plus noise: step i
   * moves the price from time start + i·step to start + (i + 1)·step, so it may reflect only the news out at the first.
   */
  protected step(x: number, i: number): number {
    const { spec, events } = this;
    const t = spec.createdAtMs + (this.newsInPrice === 'published' ? i : i + 1) * spec.stepMs;
    while (this.nextEvent < events.length && events[this.nextEvent]!.tMs <= t) this.hidden = events[this.nextEvent++]!.after;
    const h = this.hidden;
    return h + (x - h) * this.keep + this.kick * this.normal(i);
  }

  /** The outcome is drawn from the hidden probability at the end, not from the price. */
  outcomeProbability(): number {
    return this.hiddenAt(this.spec.endAtMs);
  }
}
