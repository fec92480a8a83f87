import { scoreRecord } from '../../../src/domain/benchmark/benchmark-record';
import type { BenchmarkInputs } from '../../../src/domain/benchmark/benchmark-inputs';
import { ThreadScorer } from '../../../src/domain/benchmark/record-scorer';

const HOUR = 3_600_000;

/** An account's season: 12 binary questions in 3 categories, 4 entry-price buys, 20 days of equity and timed buys. */
function inputs(n = 12): BenchmarkInputs {
  const question = (i: number) => ({
    marketId: `m${i}`,
    kind: 'binary' as const,
    winner: i % 3 === 0 ? 0 : 1,
    closedAt: 100 * HOUR,
    points: [
      { t: 0, probabilities: [0.1 + (i % 8) / 10], mids: [0.5] },
      { t: 10 * HOUR, probabilities: [0.15 + (i % 7) / 10], mids: [0.4 + (i % 5) / 10] },
    ],
  });
  const questions = Array.from({ length: n }, (_, i) => question(i));
  return {
    questions,
    contexts: Object.fromEntries(
      questions.map((q, i) => [
        q.marketId,
        { others: [{ forecaster: 'other', t: 5 * HOUR, probabilities: [0.2 + (i % 6) / 10] }], horizonMids: [0.5, 0.45, null] },
      ]),
    ),
    categories: Object.fromEntries(questions.map((q, i) => [q.marketId, ['Politics', 'Sports', 'Crypto'][i % 3]!])),
    entryQuestions: Array.from({ length: 4 }, (_, i) => ({ ...question(100 + i), points: [{ t: 0, probabilities: [0.3 + i / 10], mids: [null] }] })),
    buys: questions.map((q, i) => ({ marketId: q.marketId, cost: 10 + i, price: 0.4, after1h: 0.42, after24h: i % 2 ? 0.5 : 0.35, atClose: q.winner ? 1 : 0 })),
    kellyBuys: questions.map((_, i) => ({ cost: 5 + i, equityBefore: 1000, price: 0.4, forecast: 0.3 + i / 20 })),
    startEquity: 1000,
    days: Array.from({ length: 20 }, (_, d) => ({ day: `2026-11-${String(d + 1).padStart(2, '0')}`, equity: 1000 + 7 * d - (d % 4) * 15, flow: 0 })),
    positions: [120, 40],
  };
}

describe('scoreRecord', () => {
  it('when a record is scored, then it has every category and the entry-price basis', () => {
    const record = scoreRecord('2026-11', inputs(), 'acct|2026-11');
    expect(record.byCategory.map((c) => c.category).sort()).toEqual(['Crypto', 'Politics', 'Sports']);
    expect(record.entryPrice.questions).toBe(4);
  });
});

describe('ThreadScorer (issue 52 item 1: scoring off the event loop)', () => {
  const scorer = new ThreadScorer();
  afterAll(() => scorer.close());

  it('when the thread scores a record, then it is the record scoreRecord gives here', async () => {
    const a = inputs();
    expect(await scorer.score('2026-11', a, 'acct|2026-11')).toEqual(scoreRecord('2026-11', a, 'acct|2026-11'));
  });

  it('when the thread scores a large record, then the event loop turns meanwhile (scored here, it turns not once)', async () => {
    const big = inputs(400);
    const turnsWhile = async (work: () => unknown): Promise<number> => {
      let turns = 0;
      let on = true;
      const tick = () => {
        if (!on) return;
        turns++;
        setImmediate(tick);
      };
      setImmediate(tick);
      await work();
      on = false;
      return turns;
    };
    expect(await turnsWhile(() => scoreRecord('2026-11', big, 'acct|2026-11'))).toBe(0);
    expect(await turnsWhile(() => scorer.score('2026-11', big, 'acct|2026-11'))).toBeGreaterThanOrEqual(10);
  });

  it('when a record fails to score, then that call fails with the reason and the next one is scored', async () => {
    const broken = { ...inputs(), questions: null } as unknown as BenchmarkInputs;
    await expect(scorer.score('2026-11', broken, 'acct|2026-11')).rejects.toThrow(/scoring a record failed/);
    expect((await scorer.score('2026-11', inputs(), 'acct|2026-11')).byCategory).toHaveLength(3);
  });

  it('when the thread is stopped while scoring, then the call fails and the next starts a new thread', async () => {
    const scoring = scorer.score('2026-11', inputs(400), 'acct|2026-11');
    await scorer.close();
    await expect(scoring).rejects.toThrow(/scoring thread exited/);
    expect((await scorer.score('2026-11', inputs(), 'acct|2026-11')).entryPrice.questions).toBe(4);
  });
});
