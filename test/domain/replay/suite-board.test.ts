import { rankSuiteRecords, suiteRecords, type SuiteRun } from '../../../src/domain/replay/suite-board';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 0, minute));
let n = 0;
const run = (userId: string, scenario: string, alpha: number | null, minute: number): SuiteRun => ({
  runId: `run${String(++n).padStart(9, '0')}`,
  userId,
  displayName: userId.toUpperCase(),
  isAgent: true,
  scenario,
  alpha,
  endedAt: at(minute),
});

describe('suite board', () => {
  test('when an owner ran a scenario several times, then every ended run counts (not the best, not the latest), with the run count', () => {
    const runs = [run('a', 'suite-v1/00', 0.3, 1), run('a', 'suite-v1/00', -0.1, 5), run('a', 'suite-v1/00', 0.2, 3), run('a', 'suite-v1/01', 0.05, 2)];
    const [rec] = suiteRecords(runs);
    expect(rec!.runs.map((r) => [r.scenario, r.alpha])).toEqual([
      ['suite-v1/00', 0.3],
      ['suite-v1/00', 0.2],
      ['suite-v1/00', -0.1],
      ['suite-v1/01', 0.05],
    ]);
    expect(rec!.scenarios).toBe(2);
    expect(rec!.runCount).toBe(4);
    // (0.3 + 0.2 − 0.1 + 0.05) / 4 = 0.1125; the t interval over the four runs, computed independently below.
    const xs = [0.3, 0.2, -0.1, 0.05];
    const mean = xs.reduce((a, b) => a + b, 0) / 4;
    const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / 3);
    expect(rec!.meanAlpha.value).toBeCloseTo(0.1125, 12);
    expect(rec!.meanAlpha.n).toBe(4);
    expect(rec!.meanAlpha.low).toBeCloseTo(mean - 3.182446305284263 * (sd / 2), 9);
    expect(rec!.meanAlpha.high).toBeCloseTo(mean + 3.182446305284263 * (sd / 2), 9);
    // Order of the input does not matter.
    expect(suiteRecords([...runs].reverse())).toEqual(suiteRecords(runs));
  });

  test('when a run has no alpha, then it is listed but not counted', () => {
    const [rec] = suiteRecords([run('a', 'suite-v1/00', 0.3, 1), run('a', 'suite-v1/00', null, 2), run('a', 'suite-v1/01', 0.1, 1)]);
    expect(rec!.runs).toHaveLength(3);
    expect(rec!.scenarios).toBe(2);
    expect(rec!.runCount).toBe(2);
    expect(rec!.meanAlpha.value).toBeCloseTo(0.2, 12);
  });

  test('when owners are ranked, then only those with the minimum of scenarios, highest mean first, with the hand-computed interval', () => {
    const alphasA = [0.02, 0.05, -0.01, 0.04];
    const runs = [
      ...alphasA.map((a, i) => run('a', `suite-v1/0${i}`, a, i)),
      ...[0.1, 0.2, 0.3].map((a, i) => run('b', `suite-v1/0${i}`, a, i)),
      ...[0.01, 0.0, 0.02, 0.01].map((a, i) => run('c', `suite-v1/0${i}`, a, i)),
    ];
    const ranked = rankSuiteRecords(suiteRecords(runs), 4);
    // b has the best mean but only three scenarios: unranked.
    expect(ranked.map((r) => [r.rank, r.userId])).toEqual([
      [1, 'a'],
      [2, 'c'],
    ]);
    // As in t-interval.test.ts: 0.025 ± 3.182446 · √(0.0007 / 4).
    expect(ranked[0]!.meanAlpha.value).toBeCloseTo(0.025, 12);
    expect(ranked[0]!.meanAlpha.low).toBeCloseTo(-0.0170995, 6);
    expect(ranked[0]!.meanAlpha.high).toBeCloseTo(0.0670995, 6);
    expect(rankSuiteRecords(suiteRecords(runs), 3).map((r) => r.userId)).toEqual(['b', 'a', 'c']);
  });
});
