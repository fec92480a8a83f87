import { pageSuiteBoard, rankSuiteRecords, suiteRecords, type SuiteRun } from '../../../src/domain/replay/suite-board';

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
    // As in statistics-t-interval.test.ts: 0.025 ± 3.182446 · √(0.0007 / 4).
    expect(ranked[0]!.meanAlpha.value).toBeCloseTo(0.025, 12);
    expect(ranked[0]!.meanAlpha.low).toBeCloseTo(-0.0170995, 6);
    expect(ranked[0]!.meanAlpha.high).toBeCloseTo(0.0670995, 6);
    expect(rankSuiteRecords(suiteRecords(runs), 3).map((r) => r.userId)).toEqual(['b', 'a', 'c']);
  });

  test('when the board is paged, then every ranked owner is seen once, in rank order, and an owner joining meanwhile moves no later page', () => {
    // 9 owners, one scenario each; alphas with ties (broken by id).
    const alphas = [0.2, 0.1, 0.1, 0.1, 0.05, 0, 0, -0.1, -0.3];
    const runs = alphas.map((a, i) => run(`u${i}`, 'suite-v1/00', a, i));
    const ranked = rankSuiteRecords(suiteRecords(runs), 1);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = pageSuiteBoard('suite-v1', ranked, 4, cursor);
      seen.push(...page.entries.map((e) => e.userId));
      cursor = page.nextCursor ?? undefined;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    // Independently: by alpha down, then id.
    const expected = alphas
      .map((a, i) => ({ id: `u${i}`, a }))
      .sort((x, y) => y.a - x.a || (x.id < y.id ? -1 : 1))
      .map((x) => x.id);
    expect(seen).toEqual(expected);
    const first = pageSuiteBoard('suite-v1', ranked, 4, undefined);
    const grown = rankSuiteRecords(suiteRecords([...runs, run('a-new', 'suite-v1/00', 0.5, 20)]), 1);
    expect(pageSuiteBoard('suite-v1', grown, 4, first.nextCursor!).entries.map((e) => e.userId)).toEqual(expected.slice(4, 8));
    expect(() => pageSuiteBoard('suite-v2', ranked, 4, first.nextCursor!)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
    expect(() => pageSuiteBoard('suite-v1', ranked, 4, 'junk')).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
  });
});
