import { scenarioFingerprint, suiteChecksum } from '../../../src/market-data/simulated/suite-fingerprint';
import { scenarioNamed, scenariosOf, SUITE_V1 } from '../../../src/domain/replay/replay-suite';

// The published suite's checksum, pinned here as well as in the suite's module: a change to the suite's description or to
// anything the venue generates for it (catalog, prices, news, their text) fails this test. Publish suite-v2 instead.
const SUITE_V1_CHECKSUM = '92c5cf7cadc75daa63690afaf26494f04daf39c5cffead73accec42bdcfa2c47';

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

  test('when scenarios are named, then suite-v1/00..19 resolve to their seeds and anything else to nothing', () => {
    expect(SUITE_V1.seeds).toHaveLength(20);
    expect(scenarioNamed('suite-v1/07')).toEqual({ name: 'suite-v1/07', suite: 'suite-v1', index: 7, seed: 35_107, days: 30 });
    expect(scenarioNamed('suite-v1/20')).toBeUndefined();
    expect(scenarioNamed('suite-v9/01')).toBeUndefined();
    expect(scenarioNamed('suite-v1/7')).toBeUndefined();
  });
});
