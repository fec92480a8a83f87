import { scenarioFingerprint, suiteChecksum } from '../../../src/market-data/simulated/suite-fingerprint';
import { scenarioNamed, scenariosOf, SUITE_V1 } from '../../../src/domain/replay/replay-suite';
import { PROBE_SECRET } from '../../../src/market-data/simulated/suite-fingerprint';
import { scopeSecret, suiteScope } from '../../../src/market-data/simulated/venue-seal';
import { TEST_MASTER } from '../../support/sealed-venue';

// The published suite's checksum, pinned here as well as in the suite's module: a change to the suite's description or to
// anything the venue generates for it (catalog, prices, news, their text) fails this test. Publish suite-v2 instead.
const SUITE_V1_CHECKSUM = 'a736d89f0134c5b04af75b67c9fb2a2f2a98d23eb302a946994d95b623c0bf11';

// Twenty scenarios' catalogs and paths: some seconds, more under load.
jest.setTimeout(120_000);

describe('replay suite v1', () => {
  test('when its checksum is recomputed from the description and the venue, then it is the pinned one', () => {
    expect(SUITE_V1.checksum).toBe(SUITE_V1_CHECKSUM);
    expect(suiteChecksum(SUITE_V1)).toBe(SUITE_V1_CHECKSUM);
  });

  test('when a scenario of the suite changes, then the checksum changes', () => {
    expect(suiteChecksum({ ...SUITE_V1, seeds: SUITE_V1.seeds.map((s, i) => (i === 19 ? s + 1000 : s)) })).not.toBe(SUITE_V1_CHECKSUM);
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
    expect(SUITE_V1.seeds).toHaveLength(20);
    expect(scenarioNamed('suite-v1/07')).toEqual({ name: 'suite-v1/07', suite: 'suite-v1', index: 7, seed: 35_107, days: 30 });
    expect(scenarioNamed('suite-v1/20')).toBeUndefined();
    expect(scenarioNamed('suite-v9/01')).toBeUndefined();
    expect(scenarioNamed('suite-v1/7')).toBeUndefined();
  });
});
