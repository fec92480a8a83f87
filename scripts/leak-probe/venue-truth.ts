import type { SimulatedFeed } from '../../src/market-data/simulated/simulated-feed';
import { parseMarketRef, parseTokenId, type SimMarketSpec } from '../../src/market-data/simulated/catalog';
import { scenarioFeed, scenarioScope, type SealedScenario } from '../../src/market-data/simulated/scenario-feed';
import { scopeSecret } from '../../src/market-data/simulated/venue-seal';
import { syntheticDepth } from '../../src/market-data/simulated/synthetic-book';
import { bookAround } from '../../src/market-data/simulated/simulated-feed';
import { InformedPath } from '../../src/market-data/simulated/information';
import { EventPath } from '../../src/market-data/simulated/event-path';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** How far ahead the probe looks for a price an answer should not know yet: a step of the path, minutes, hours, days. */
const LOOK_AHEAD_MS = [MINUTE, 10 * MINUTE, HOUR, 6 * HOUR, DAY, 3 * DAY, 7 * DAY, 30 * DAY];

/** A price as the probe compares it: dollars to six decimals (the API's money and probabilities carry no more). */
export const priceKey = (p: number): string => (Math.round(p * 1e6) / 1e6).toFixed(6);

/**
 * The probe's own copy of an episode's venue: the scenario's feed rebuilt from the master secret (as every run, playback
 * and check builds it), never the run's. What the venue is at any moment comes from here, so an answer is judged against
 * the venue's path, not against what the service under test believes it to be.
 */
export class VenueTruth {
  readonly feed: SimulatedFeed;
  /** The secret the episode's venue is sealed under (hex): with it every later price, news item and outcome is computable. */
  readonly secretHex: string;
  private readonly memo = new Map<string, Set<string>>();
  private readonly laterMemo = new Map<string, Set<string>>();

  constructor(master: Buffer, scenario: SealedScenario) {
    this.secretHex = scopeSecret(master, scenarioScope(scenario)).toString('hex');
    // The probe reads the path at explicit times only (stateAt, marketAt); its clock is never asked.
    this.feed = scenarioFeed(master, scenario, {
      now: () => {
        throw new Error('the probe’s venue has no clock: it is read at explicit times');
      },
    });
  }

  /** The market an id (sim-123), slug (…-123) or token names, or null when it names none of this venue. */
  marketOf(ref: string): SimMarketSpec | null {
    const k = parseMarketRef(ref);
    if (k !== null) {
      const spec = this.feed.spec(k);
      return spec.id === ref || spec.slug === ref ? spec : null;
    }
    const token = parseTokenId(this.feed.params, ref);
    return token ? this.feed.spec(token.k) : null;
  }

  tokenOf(ref: string): { spec: SimMarketSpec; outcome: 'YES' | 'NO' } | null {
    const token = parseTokenId(this.feed.params, ref);
    return token ? { spec: this.feed.spec(token.k), outcome: token.outcome } : null;
  }

  /** When a news item (news-sim-123-4) was published, or null when the venue has no such item. */
  newsTime(id: string): number | null {
    const m = /^news-(sim-\d+)-(\d+)$/.exec(id);
    const spec = m ? this.marketOf(m[1]!) : null;
    const event = spec ? this.feed.newsEventsOf(spec)[Number(m![2])] : undefined;
    return event ? event.tMs : null;
  }

  /**
   * Every price the market shows at a moment: each side's mid, bid and ask, the last trade's price, and the settlement
   * (1, 0 or 0.5) once resolved; with `depth`, the deeper levels of each side's book too (syntheticDepth), which only a
   * book shows. Empty before the market exists. Memoised by market and moment: a probe asks the same ones many times.
   */
  pricesAt(spec: SimMarketSpec, tMs: number, depth = false): Set<string> {
    const key = `${spec.k}|${tMs}|${depth}`;
    let out = this.memo.get(key);
    if (out) return out;
    out = new Set<string>();
    if (this.memo.size > 50_000) this.memo.clear();
    this.memo.set(key, out);
    const m = this.feed.marketAt(spec, tMs);
    if (!m) return out;
    for (const token of m.tokens) {
      for (const micro of [token.priceMicro, token.bidMicro, token.askMicro]) if (micro !== null) out.add(priceKey(Number(micro) / 1e6));
      if (depth && token.bidMicro !== null && token.askMicro !== null) {
        const book = syntheticDepth(token.bidMicro, token.askMicro, m.volume);
        for (const level of [...book.bids, ...book.asks]) out.add(priceKey(Number(level.priceMicro) / 1e6));
      }
    }
    if (m.stats?.lastTradePriceMicro != null) out.add(priceKey(Number(m.stats.lastTradePriceMicro) / 1e6));
    return out;
  }

  /**
   * Prices the market will show after `clockMs` and does not show at it: what an answer at `clockMs` must not hold. The
   * settlement is among them while the resolution is not yet due.
   */
  laterPrices(spec: SimMarketSpec, clockMs: number): Set<string> {
    const key = `${spec.k}|${clockMs}`;
    const known = this.laterMemo.get(key);
    if (known) return known;
    const now = this.pricesAt(spec, clockMs);
    const later = new Set<string>();
    if (this.laterMemo.size > 20_000) this.laterMemo.clear();
    this.laterMemo.set(key, later);
    const times = [...LOOK_AHEAD_MS.map((d) => clockMs + d), spec.endAtMs, spec.resolveAtMs];
    for (const t of times) {
      if (t <= clockMs) continue;
      for (const p of this.pricesAt(spec, t)) if (!now.has(p)) later.add(p);
    }
    return later;
  }

  /** A price history point's value at its own time: the side's mid then (the settlement once resolved). */
  pointAt(spec: SimMarketSpec, outcome: 'YES' | 'NO', tMs: number): number | null {
    const m = this.feed.marketAt(spec, tMs);
    const token = m?.tokens.find((x) => x.outcome === outcome);
    return token ? Number(token.priceMicro) / 1e6 : null;
  }

  /**
   * The YES mid the market would show at `tMs` had its price path seen only the news published by then, when that differs
   * from the mid it shows; else null. Under NewsInPrice 'step-end' (suite-v1, suite-v2) the path steps toward the hidden
   * probability after every news item up to the end of the current price step and is read between steps by interpolation
   * (price-path.ts), so within a step before a news item the price already leans toward it: news not yet published,
   * visible in the price. Under 'published' (every other venue) a step sees only the news out at its start: never.
   */
  midWithoutLaterNews(spec: SimMarketSpec, tMs: number): { shown: string; fromPublished: string } | null {
    const members = this.feed.membersOf(spec);
    const stepEnd = (m: SimMarketSpec) => m.createdAtMs + (Math.floor((tMs - m.createdAtMs) / m.stepMs) + 1) * m.stepMs;
    if (tMs < spec.createdAtMs || tMs >= spec.endAtMs) return null;
    if (!members.some((m) => this.feed.newsEventsOf(m).some((e) => e.tMs > tMs && e.tMs <= stepEnd(m)))) return null;
    const published = (m: SimMarketSpec) =>
      new InformedPath(
        this.feed.params,
        m,
        this.feed.newsEventsOf(m).filter((e) => e.tMs <= tMs),
        this.feed.drawsOf(m),
        this.feed.newsInPrice,
      );
    const path = spec.event ? new EventPath(spec, members, published) : published(spec);
    const mid = (p: number) => priceKey(Number(bookAround(p, spec.halfSpreadMicro).yes.midMicro) / 1e6);
    const shown = mid(this.feed.stateAt(spec, tMs)!.pYes);
    const fromPublished = mid(path.probabilityAt(tMs));
    return shown === fromPublished ? null : { shown, fromPublished };
  }
}
