import { AppError } from '../../errors/app-error';
import type { SimulatedScenario } from './replay-runs';

/**
 * The published replay suites (issue 35 item 3, versioned by issue 49 item 1): named scenarios ("episodes") of the
 * simulated venue with information, the same for every agent, so suite records compare. A suite version is frozen: its
 * checksum is sha256 over its canonical description and a fingerprint of what the venue's generator makes of each
 * episode under a public probe secret (src/market-data/simulated/suite-fingerprint.ts); the episodes themselves are
 * sealed under the version's own secret (scope suite|<name>), whose commitment get_venue_commitments publishes. A test
 * pins each checksum, so a change to a suite or to the venue's generator fails it: publish a new version rather than
 * change one, or every record on its board would stop meaning the same thing.
 *
 * A version is current until it retires (retiredAt). Retiring reveals its secret (get_venue_commitments; anyone can then
 * recompute its outcomes with scripts/verify-venue.ts and check the commitment), so from that moment its board is
 * read-only: new runs of its episodes are refused (SUITE_RETIRED) and a run ending later does not join the board.
 *
 * suite-v1 (retired): 20 seeds × 30 simulated days of the whole venue (about 300 markets open at any moment). Its
 * checksum was once re-pinned when the venue changed, which is what a version exists to prevent; it retired when
 * suite-v2 was published. Scenario i has seed 35_100 + i.
 *
 * suite-v2 (retired): 50 episodes × 30 simulated days, each of one catalogue category (the venue lists only that
 * category's markets and their news: src/market-data/simulated/simulated-feed.ts), five seeds for each of the ten
 * categories, in category order within a seed (episode i: category CATEGORY_ORDER[i % 10], seed 52_500 + ⌊i / 10⌋;
 * 52: the issue). An episode's category is part of what it replays, so it is in the canonical description. Its prices
 * leaned toward news up to a price step before its publication (NewsInPrice 'step-end', found by the leak probe); it
 * retired when suite-v3 was published.
 *
 * suite-v3 (current): suite-v2's layout (seeds 53_000 + ⌊i / 10⌋) on the venue whose prices follow only news already
 * published (NewsInPrice 'published').
 */
export interface ReplaySuite {
  name: string;
  description: string;
  /** Simulated days of each episode's window. */
  days: number;
  /** The episodes, in order: a seed of the venue, and the one catalogue category it lists (null: every category). */
  episodes: readonly SuiteEpisode[];
  /** Distinct episodes an owner needs on the suite board before it ranks them. */
  minScenarios: number;
  /** sha256 (hex) of the canonical description and the venue's fingerprint: what the suite test recomputes. */
  checksum: string;
  /**
   * When the version retired (ISO), or null while it is current. Its episodes are sealed under the version's own secret
   * (sealed outcomes, issue 49), which get_venue_commitments reveals from this moment on; not in the checksum.
   */
  retiredAt: string | null;
  /** Which news its venue's price steps catch up with; part of what its checksum's fingerprints pin. */
  newsInPrice: NewsInPrice;
}

/**
 * Which news a price step of the simulated venue catches up with (src/market-data/simulated/information.ts):
 * 'published', the news out by the step's start, so the price read between two steps never moves on an item before it
 * is published; 'step-end', every item up to the step's end, so the price leaned toward an item up to one step before
 * its publication (the leak probe's pricesAheadOfNews). suite-v1 and suite-v2 were pinned with 'step-end' and keep it, so
 * they replay what they published; every other venue is 'published'.
 */
export type NewsInPrice = 'published' | 'step-end';

export interface SuiteEpisode {
  seed: number;
  /** A catalogue category (src/market-data/simulated/questions.ts CATEGORIES), or null for the whole venue. */
  category: string | null;
}

export interface SuiteScenario extends SimulatedScenario {
  name: string;
  suite: string;
  index: number;
  category: string | null;
}

export type SuiteStatus = 'current' | 'retired';

/**
 * The catalogue's categories in the order of suite-v2's and suite-v3's episodes. The domain does not read the venue's
 * catalogue (a layer below it would have to import market-data); a test checks this list is the catalogue's.
 */
export const CATEGORY_ORDER = ['Politics', 'Sports', 'Crypto', 'Economics', 'Science & Tech', 'Culture', 'World', 'Weather', 'Business', 'Health'] as const;

export const SUITE_V1: ReplaySuite = {
  name: 'suite-v1',
  description: 'Replay suite v1: 20 seeds of the simulated venue with information, 30 simulated days each, from 2025-01-01, ~300 open markets.',
  days: 30,
  episodes: Array.from({ length: 20 }, (_, i) => ({ seed: 35_100 + i, category: null })),
  // Half the suite: a mean over fewer scenarios has an interval too wide to rank by.
  minScenarios: 10,
  checksum: 'a736d89f0134c5b04af75b67c9fb2a2f2a98d23eb302a946994d95b623c0bf11',
  // Retired when suite-v2 was published (issue 52 item 5): its secret is revealed from then on.
  retiredAt: '2026-12-06T00:00:00.000Z',
  newsInPrice: 'step-end',
};

const SEEDS_PER_CATEGORY = 5;

/** Five seeds for each of the ten categories, in category order within a seed: episode i is CATEGORY_ORDER[i % 10] of seed first + ⌊i / 10⌋. */
function categoryEpisodes(firstSeed: number): SuiteEpisode[] {
  return Array.from({ length: SEEDS_PER_CATEGORY * CATEGORY_ORDER.length }, (_, i) => ({
    seed: firstSeed + Math.floor(i / CATEGORY_ORDER.length),
    category: CATEGORY_ORDER[i % CATEGORY_ORDER.length]!,
  }));
}

export const SUITE_V2: ReplaySuite = {
  name: 'suite-v2',
  description:
    'Replay suite v2: 50 episodes of the simulated venue with information, 30 simulated days each, from 2025-01-01; ' +
    'each episode lists one catalogue category (5 seeds for each of 10 categories).',
  days: 30,
  episodes: categoryEpisodes(52_500),
  // A fifth of the suite, two episodes of each category on average: ranked on fewer, the interval is too wide to rank by.
  minScenarios: 10,
  checksum: '4a956335de07c27165c6231d52cf3dc1bf945bf88dac98d5baef371aa2bc9946',
  // Retired when suite-v3 was published: its prices leaned toward news before its publication.
  retiredAt: '2026-12-07T00:00:00.000Z',
  newsInPrice: 'step-end',
};

export const SUITE_V3: ReplaySuite = {
  name: 'suite-v3',
  description:
    'Replay suite v3: 50 episodes of the simulated venue with information, 30 simulated days each, from 2025-01-01; ' +
    'each episode lists one catalogue category (5 seeds for each of 10 categories); prices follow only news already published.',
  days: 30,
  episodes: categoryEpisodes(53_000),
  minScenarios: 10,
  checksum: '1f86abc2717955331549c40632a40aceaa95c3794522d3f93a9cd5d86e308ad3',
  retiredAt: null,
  newsInPrice: 'published',
};

/** Every published version, oldest first; the current one is the newest that has not retired. */
export const SUITES: readonly ReplaySuite[] = [SUITE_V1, SUITE_V2, SUITE_V3];

/** A version's status at a moment: retired from its retiredAt on. */
export function suiteStatus(suite: ReplaySuite, nowMs: number): SuiteStatus {
  return suite.retiredAt !== null && nowMs >= Date.parse(suite.retiredAt) ? 'retired' : 'current';
}

/** The suite a listing defaults to: the newest version current at `nowMs` (the newest of all when every one retired). */
export function currentSuite(nowMs: number, suites: readonly ReplaySuite[] = SUITES): ReplaySuite {
  return [...suites].reverse().find((s) => suiteStatus(s, nowMs) === 'current') ?? suites[suites.length - 1]!;
}

/** Whether a run of the named suite's episodes may still join its board at `nowMs`: false once the version retired. */
export function suiteOpen(suiteName: string, nowMs: number): boolean {
  const suite = suiteNamed(suiteName);
  return suite !== undefined && suiteStatus(suite, nowMs) === 'current';
}

/**
 * Refuses a new run of a retired version's episode: its secret is revealed, so a run could know every outcome in
 * advance, and its board is read-only. A scenario of one's own (no suite) is never refused here.
 */
export function assertSuiteOpen(suiteName: string | undefined, nowMs: number): void {
  if (suiteName === undefined || suiteOpen(suiteName, nowMs)) return;
  const current = currentSuite(nowMs);
  throw new AppError('SUITE_RETIRED', `The replay suite ${suiteName} has retired: its secret is revealed and its board is read-only.`, {
    hint: `Start an episode of the current suite (${current.name}: list_replay_suite), e.g. {"scenario": "${scenarioName(current, 0)}"}; get_replay_suite_board {"suite": "${suiteName}"} still reads the retired board.`,
  });
}

/** A scenario's name: the suite's, a slash and its two-digit index (suite-v2/07). */
export function scenarioName(suite: ReplaySuite, index: number): string {
  return `${suite.name}/${String(index).padStart(2, '0')}`;
}

/**
 * The suite's episodes, in order: what a run of each replays (seed, days, category) and its name. This is the suite's
 * listing for every reader (list_replay_suite, the checksum, playback, probes).
 */
export function scenariosOf(suite: ReplaySuite): SuiteScenario[] {
  return suite.episodes.map(({ seed, category }, index) => ({
    name: scenarioName(suite, index),
    suite: suite.name,
    index,
    seed,
    days: suite.days,
    category,
  }));
}

export function suiteNamed(name: string): ReplaySuite | undefined {
  return SUITES.find((s) => s.name === name);
}

/** The named scenario (suite-v1/07), or undefined when no published suite has it. */
export function scenarioNamed(name: string): SuiteScenario | undefined {
  const m = /^([a-z0-9-]+)\/(\d{2})$/.exec(name);
  const suite = m ? suiteNamed(m[1]!) : undefined;
  return suite ? scenariosOf(suite)[Number(m![2])] : undefined;
}

/**
 * The canonical description the checksum covers: every field that decides what a scenario replays, as arrays in a fixed
 * order (so the serialisation has one form).
 */
export function canonicalDescription(suite: ReplaySuite, startMs: number): string {
  return JSON.stringify([
    'replay-suite',
    suite.name,
    suite.description,
    new Date(startMs).toISOString(),
    suite.days,
    suite.minScenarios,
    // A whole-venue episode (suite-v1) is [name, seed, days], as before categories: its checksum stays the one pinned.
    scenariosOf(suite).map((s) => (s.category === null ? [s.name, s.seed, s.days] : [s.name, s.seed, s.days, s.category])),
  ]);
}
