import { scenarioFingerprint, suiteChecksum } from '../../../src/market-data/simulated/suite-fingerprint';
import {
  CATEGORY_ORDER,
  currentSuite,
  scenarioNamed,
  scenariosOf,
  SUITE_V1,
  SUITE_V2,
  SUITE_V3,
  SUITES,
  suiteStatus,
} from '../../../src/domain/replay/replay-suite';
import { CATEGORIES } from '../../../src/market-data/simulated/questions';
import { PROBE_SECRET } from '../../../src/market-data/simulated/suite-fingerprint';
import { scopeSecret, suiteScope } from '../../../src/market-data/simulated/venue-seal';
import { TEST_MASTER } from '../../support/sealed-venue';

// The published suite's checksum, pinned here as well as in the suite's module: a change to the suite's description or to
// anything the venue generates for it (catalog, prices, news, their text) fails this test. Publish a new version instead.
const SUITE_V1_CHECKSUM = 'a736d89f0134c5b04af75b67c9fb2a2f2a98d23eb302a946994d95b623c0bf11';
const SUITE_V2_CHECKSUM = '4a956335de07c27165c6231d52cf3dc1bf945bf88dac98d5baef371aa2bc9946';
const SUITE_V3_CHECKSUM = '1f86abc2717955331549c40632a40aceaa95c3794522d3f93a9cd5d86e308ad3';

// 120 episodes' catalogs and paths (suite-v1's twenty, suite-v2's and suite-v3's fifty): some seconds each under load.
jest.setTimeout(600_000);

// Each episode's fingerprint once: a variant of a suite recomputes only the episode it changes. The suite is in the key:
// it decides the price rule (suite-v1 and suite-v2 keep theirs).
const fingerprints = new Map<string, string>();
const memo = (s: { seed: number; days: number; category: string | null; suite: string }) => {
  const key = `${s.seed}|${s.days}|${s.category}|${s.suite}`;
  if (!fingerprints.has(key)) fingerprints.set(key, scenarioFingerprint(s));
  return fingerprints.get(key)!;
};

describe('replay suite v1', () => {
  test('when its checksum is recomputed from the description and the venue, then it is the pinned one', () => {
    expect(SUITE_V1.checksum).toBe(SUITE_V1_CHECKSUM);
    expect(suiteChecksum(SUITE_V1, memo)).toBe(SUITE_V1_CHECKSUM);
  });

  test('when a scenario of the suite changes, then the checksum changes', () => {
    const changed = SUITE_V1.episodes.map((e, i) => (i === 19 ? { ...e, seed: e.seed + 1000 } : e));
    expect(suiteChecksum({ ...SUITE_V1, episodes: changed }, memo)).not.toBe(SUITE_V1_CHECKSUM);
  });

  test('when a scenario is fingerprinted, then it holds the catalog open at the start (about 300 markets) and the first 20 news items', () => {
    const s = scenariosOf(SUITE_V1)[0]!;
    const [catalog, news] = JSON.parse(scenarioFingerprint(s)) as [unknown[][], unknown[][]];
    expect(catalog.length).toBeGreaterThan(200);
    expect(catalog.length).toBeLessThan(400);
    expect(news).toHaveLength(20);
    expect(scenarioFingerprint(s)).toBe(scenarioFingerprint({ ...s }));
    expect(scenarioFingerprint({ seed: s.seed + 1, days: s.days })).not.toBe(scenarioFingerprint(s));
  });

  test('when a scenario is fingerprinted under the suite’s sealed secret, then its catalog is the probe’s but its prices and news are not', () => {
    const s = scenariosOf(SUITE_V1)[0]!;
    const sealed = scopeSecret(TEST_MASTER, suiteScope(SUITE_V1.name));
    const [probeCatalog, probeNews] = JSON.parse(scenarioFingerprint(s, PROBE_SECRET)) as [unknown[][], unknown[][]];
    const [catalog, news] = JSON.parse(scenarioFingerprint(s, sealed)) as [unknown[][], unknown[][]];
    // id, slug, question, end and both tokens are the seed's; the mid (last) is the secret's.
    expect(catalog.map((m) => m.slice(0, 6))).toEqual(probeCatalog.map((m) => m.slice(0, 6)));
    expect(catalog.filter((m, i) => m[6] !== probeCatalog[i]![6]).length).toBeGreaterThan(catalog.length * 0.9);
    expect(news).not.toEqual(probeNews);
  });

  test('when scenarios are named, then suite-v1/00..19 resolve to their seeds and anything else to nothing', () => {
    expect(SUITE_V1.episodes).toHaveLength(20);
    expect(scenarioNamed('suite-v1/07')).toEqual({ name: 'suite-v1/07', suite: 'suite-v1', index: 7, seed: 35_107, days: 30, category: null });
    expect(scenarioNamed('suite-v1/20')).toBeUndefined();
    expect(scenarioNamed('suite-v9/01')).toBeUndefined();
    expect(scenarioNamed('suite-v1/7')).toBeUndefined();
  });
});

describe('replay suite v2 and the versions', () => {
  test('when its checksum is recomputed from the description and the venue, then it is the pinned one; a changed category changes it', () => {
    expect(SUITE_V2.checksum).toBe(SUITE_V2_CHECKSUM);
    expect(suiteChecksum(SUITE_V2, memo)).toBe(SUITE_V2_CHECKSUM);
    const swapped = SUITE_V2.episodes.map((e, i) => (i === 0 ? { ...e, category: 'Health' } : e));
    expect(suiteChecksum({ ...SUITE_V2, episodes: swapped }, memo)).not.toBe(SUITE_V2_CHECKSUM);
  });

  test('when its episodes are listed, then there are at least 50 across at least 5 of the catalogue’s categories, each named once', () => {
    const episodes = scenariosOf(SUITE_V2);
    expect(episodes.length).toBeGreaterThanOrEqual(50);
    const categories = new Set(episodes.map((e) => e.category));
    expect(categories.size).toBeGreaterThanOrEqual(5);
    // The domain's list of categories is the catalogue's (the domain may not import the venue).
    expect([...CATEGORY_ORDER].sort()).toEqual([...CATEGORIES].sort());
    for (const c of categories) expect(CATEGORIES).toContain(c);
    expect(new Set(episodes.map((e) => e.name)).size).toBe(episodes.length);
    expect(new Set(episodes.map((e) => `${e.seed}|${e.category}`)).size).toBe(episodes.length);
    expect(episodes.every((e) => e.days === 30 && e.suite === 'suite-v2')).toBe(true);
    expect(scenarioNamed('suite-v2/12')).toEqual({ name: 'suite-v2/12', suite: 'suite-v2', index: 12, seed: 52_501, days: 30, category: 'Crypto' });
    expect(scenarioNamed('suite-v2/50')).toBeUndefined();
  });

  test('when an episode is fingerprinted, then its catalog holds only its category’s markets, a part of the whole venue’s', () => {
    const e = scenariosOf(SUITE_V2)[2]!;
    const [catalog] = JSON.parse(scenarioFingerprint(e)) as [unknown[][]];
    const [whole] = JSON.parse(scenarioFingerprint({ seed: e.seed, days: e.days })) as [unknown[][]];
    expect(catalog.length).toBeGreaterThan(5);
    expect(catalog.length).toBeLessThan(whole.length / 3);
    const ids = new Set(whole.map((m) => m[0]));
    expect(catalog.every((m) => ids.has(m[0]))).toBe(true);
  });

  test('when the versions are read at a moment, then suite-v1 and then suite-v2 retire from their retirement on and suite-v3 is current', () => {
    expect(SUITES.map((s) => s.name)).toEqual(['suite-v1', 'suite-v2', 'suite-v3']);
    const retiredAt = Date.parse(SUITE_V1.retiredAt!);
    expect(suiteStatus(SUITE_V1, retiredAt - 1)).toBe('current');
    expect(suiteStatus(SUITE_V1, retiredAt)).toBe('retired');
    const v2RetiredAt = Date.parse(SUITE_V2.retiredAt!);
    expect(v2RetiredAt).toBeGreaterThan(retiredAt);
    expect(suiteStatus(SUITE_V2, v2RetiredAt - 1)).toBe('current');
    expect(suiteStatus(SUITE_V2, v2RetiredAt)).toBe('retired');
    expect(suiteStatus(SUITE_V3, Date.parse('2100-01-01T00:00:00Z'))).toBe('current');
    expect(currentSuite(v2RetiredAt)).toBe(SUITE_V3);
  });
});

describe('replay suite v3', () => {
  test('when its checksum is recomputed from the description and the venue, then it is the pinned one', () => {
    expect(SUITE_V3.checksum).toBe(SUITE_V3_CHECKSUM);
    expect(suiteChecksum(SUITE_V3, memo)).toBe(SUITE_V3_CHECKSUM);
  });

  test('when its episodes are listed, then they are suite-v2’s layout on seeds of their own, and its prices follow only published news while suite-v1’s and suite-v2’s keep their rule', () => {
    const v2 = scenariosOf(SUITE_V2);
    const v3 = scenariosOf(SUITE_V3);
    expect(v3.map((e) => e.category)).toEqual(v2.map((e) => e.category));
    expect(scenarioNamed('suite-v3/12')).toEqual({ name: 'suite-v3/12', suite: 'suite-v3', index: 12, seed: 53_001, days: 30, category: 'Crypto' });
    expect(new Set(v3.map((e) => e.seed)).size).toBe(5);
    for (const e of v3) expect(v2.map((x) => x.seed)).not.toContain(e.seed);
    expect([SUITE_V1.newsInPrice, SUITE_V2.newsInPrice, SUITE_V3.newsInPrice]).toEqual(['step-end', 'step-end', 'published']);
    // The rule is in the fingerprint: the same episode under the old rule is another venue.
    expect(scenarioFingerprint(v3[0]!, PROBE_SECRET, 'step-end')).not.toBe(memo(v3[0]!));
  });
});
