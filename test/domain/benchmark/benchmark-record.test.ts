import { scoreRecord, scoreRecordYielding } from '../../../src/domain/benchmark/benchmark-record';
import type { BenchmarkInputs } from '../../../src/domain/benchmark/benchmark-inputs';

const HOUR = 3_600_000;

/** An account's season: 12 binary questions in 3 categories, 4 entry-price buys, 20 days of equity and timed buys. */
function inputs(): BenchmarkInputs {
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
  const questions = Array.from({ length: 12 }, (_, i) => question(i));
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
  it('when a record is scored handing the event loop back between its parts, then it is the record scored at once', async () => {
    const a = inputs();
    expect(await scoreRecordYielding('2026-11', a, 'acct|2026-11')).toEqual(scoreRecord('2026-11', a, 'acct|2026-11'));
    const record = scoreRecord('2026-11', a, 'acct|2026-11');
    expect(record.byCategory.map((c) => c.category).sort()).toEqual(['Crypto', 'Politics', 'Sports']);
    expect(record.entryPrice.questions).toBe(4);
  });

  it('when a record is scored handing the loop back, then other work runs between its parts (stated forecasts, entry price, each category, risk, timing)', async () => {
    let turns = 0;
    let scoring = true;
    const count = () => {
      if (!scoring) return;
      turns++;
      setImmediate(count);
    };
    setImmediate(count);
    await scoreRecordYielding('2026-11', inputs(), 'acct|2026-11');
    scoring = false;
    // One part before the first hand-back, then the entry price, 3 categories, risk and timing after one each.
    expect(turns).toBeGreaterThanOrEqual(5);
  });
});
