import { createHash } from 'node:crypto';
import { canonicalDescription, scenariosOf, type ReplaySuite, type SuiteScenario } from '../../domain/replay/replay-suite';
import { REPLAY_START_MS } from '../../domain/replay/replay-runs';
import { candidateRange } from './catalog';
import { newsIdOf } from './information';
import { newsText } from './news-text';
import type { SimulatedFeed } from './simulated-feed';
import { scenarioFeedWith } from './scenario-feed';

const DAY_MS = 86_400_000;
/** News items of each scenario the fingerprint covers: the first of its window. */
export const FINGERPRINT_NEWS = 20;

/**
 * The public probe secret the checksum's fingerprints are generated under (32 zero bytes). The real scenarios are sealed
 * under their suite's secret, which no published text may depend on; under a fixed, public secret the fingerprint still
 * pins the generator (catalog, price paths, news and its text), and the suite's commitment (get_venue_commitments)
 * pins the secret: the two together fix what every scenario replays.
 */
export const PROBE_SECRET = Buffer.alloc(32);

/**
 * What the venue generates for one scenario under a scope secret (default: the probe's), in a canonical form: the
 * catalog open at the window's start (id, slug, question, end, both tokens, the YES mid) and the first news items of the
 * window (id, time, market, headline and body). A change to the catalog, the price paths, the news or its text changes
 * it, and with it the suite's checksum.
 */
export function scenarioFingerprint(s: Pick<SuiteScenario, 'seed' | 'days'> & { category?: string | null }, secret: Buffer = PROBE_SECRET): string {
  const startMs = REPLAY_START_MS;
  const endMs = startMs + s.days * DAY_MS;
  const feed = scenarioFeedWith(secret, s.seed, { now: () => new Date(startMs) }, s.category ?? null);
  const catalog: unknown[] = [];
  const news: Array<[number, string, string, string, string]> = [];
  for (const m of listAt(feed, startMs)) {
    catalog.push([m.id, m.slug, m.question, m.endAtMs, m.yesTokenId, m.noTokenId, feed.marketAt(m, startMs)!.tokens[0]!.priceMicro.toString()]);
  }
  for (const spec of aliveIn(feed, startMs, endMs)) {
    for (const e of feed.newsEventsOf(spec)) {
      if (e.tMs <= startMs || e.tMs > endMs) continue;
      const text = newsText(spec.question, spec.category, e.kindDraw, e.report);
      news.push([e.tMs, newsIdOf(spec.id, e.j), spec.id, text.headline, text.body]);
    }
  }
  news.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return JSON.stringify([catalog, news.slice(0, FINGERPRINT_NEWS)]);
}

/**
 * The suite's checksum: sha256 over its canonical description and each scenario's fingerprint under the probe secret, in
 * order. `fingerprint` is scenarioFingerprint; a caller checking several variants of a suite may pass a memoised one.
 */
export function suiteChecksum(suite: ReplaySuite, fingerprint: (s: SuiteScenario) => string = (s) => scenarioFingerprint(s)): string {
  const h = createHash('sha256').update(canonicalDescription(suite, REPLAY_START_MS));
  for (const s of scenariosOf(suite)) h.update('\n').update(s.name).update('\n').update(fingerprint(s));
  return h.digest('hex');
}

function listAt(feed: SimulatedFeed, tMs: number) {
  return [...aliveIn(feed, tMs - 1, tMs)].filter((spec) => spec.createdAtMs <= tMs && spec.resolveAtMs > tMs);
}

/** Every market the venue lists that exists at some moment of (fromMs, toMs] and is not yet resolved at fromMs, by k. */
function* aliveIn(feed: SimulatedFeed, fromMs: number, toMs: number) {
  const { from } = candidateRange(feed.params, fromMs);
  const { to } = candidateRange(feed.params, toMs);
  for (let k = from; k <= to; k++) {
    const spec = feed.spec(k);
    if (spec.createdAtMs <= toMs && spec.resolveAtMs > fromMs && feed.lists(spec)) yield spec;
  }
}
