import fc from 'fast-check';
import { scoreLife, scoreQuestionLife, type PeerForecast, type QuestionContext } from '../../../src/domain/benchmark/life-scores';
import type { ResolvedQuestion } from '../../../src/domain/benchmark/forecast-scores';

const H = 3_600_000;
const D = 24 * H;

/**
 * An independent computation: the scores read at the middle of every hour of the question's life (fixtures change only
 * on whole hours, so each hour is scored at a moment inside it), each forecaster's forecast in force found afresh.
 */
function byTheHour(q: ResolvedQuestion, others: PeerForecast[]): { baseline: number; peer: number; coverage: number } {
  const w = q.winner!;
  const vec = (ps: number[]) => (q.kind === 'binary' ? [1 - ps[0]!, ps[0]!] : ps);
  const lnw = (ps: number[]) => Math.log(Math.max(vec(ps)[w]!, 0.001));
  const K = q.kind === 'binary' ? 2 : q.points[0]!.probabilities.length;
  const own = q.points.filter((p) => p.t <= q.closedAt);
  const first = Math.min(...own.map((p) => p.t));
  const start = Math.min(first, ...others.filter((p) => p.t <= q.closedAt).map((p) => p.t));
  let b = 0;
  let pe = 0;
  let hours = 0;
  for (let t = first + H / 2; t < q.closedAt; t += H) {
    const mine = own.filter((p) => p.t <= t).at(-1)!;
    const held = new Map<string, number[]>();
    for (const o of others) if (o.t <= t) held.set(o.forecaster, o.probabilities);
    b += (100 * (lnw(mine.probabilities) + Math.log(K))) / Math.log(K);
    const mean = [...held.values()].reduce((s, v) => s + lnw(v), 0) / (held.size || 1);
    pe += held.size === 0 ? 0 : 100 * (lnw(mine.probabilities) - mean);
    hours++;
  }
  return { baseline: b / hours, peer: pe / hours, coverage: (q.closedAt - first) / (q.closedAt - start) };
}

const q = (over: Partial<ResolvedQuestion> = {}): ResolvedQuestion => ({
  marketId: 'm',
  kind: 'binary',
  winner: 1,
  closedAt: 10 * H,
  points: [{ t: 0, probabilities: [0.8], mids: [0.5] }],
  ...over,
});
const ctx = (others: PeerForecast[] = [], horizonMids: Array<number | null> = [null, null, null]): QuestionContext => ({ others, horizonMids });

describe('life scores (Metaculus baseline and peer, time-averaged)', () => {
  test('a question forecast by one account only: baseline 100·log₂(2p), peer 0, full coverage', () => {
    const s = scoreQuestionLife(q(), ctx())!;
    // 100 × log₂(1.6) = 67.8071905…
    expect(s.baseline).toBeCloseTo(67.80719051126377, 10);
    expect(s.peer).toBe(0);
    expect(s.coverage).toBe(1);
    expect(s.peers).toBe(0);
  });

  test('a replaced forecast and a peer who joins later: each stretch weighs by its hours', () => {
    // Own: 0.8 for hours 0–4, then 0.5 for hours 4–10. Another: 0.4 from hour 2 on. YES.
    const question = q({
      points: [
        { t: 0, probabilities: [0.8], mids: [0.5] },
        { t: 4 * H, probabilities: [0.5], mids: [0.5] },
      ],
    });
    const others = [{ forecaster: 'b', t: 2 * H, probabilities: [0.4] }];
    const s = scoreQuestionLife(question, ctx(others))!;
    // Baseline: (4 × 100·log₂1.6 + 6 × 0) / 10 = 27.1228762…
    expect(s.baseline).toBeCloseTo((4 * 100 * Math.log2(1.6)) / 10, 10);
    // Peer: hours 0–2 nobody else (0); 2–4: 100 ln(0.8/0.4) = 69.3147…; 4–10: 100 ln(0.5/0.4) = 22.3143…; over 10 hours.
    expect(s.peer).toBeCloseTo((2 * 100 * Math.log(2) + 6 * 100 * Math.log(1.25)) / 10, 10);
    expect(s.peer).toBeCloseTo(byTheHour(question, others).peer, 10);
  });

  test('an account that comes late: coverage is its share of the life, the scores average its own stretch only', () => {
    // Another forecasts 0.6 at hour 0, replaced by 0.9 at hour 6; the account states 0.3 at hour 5 on a NO.
    const question = q({ winner: 0, points: [{ t: 5 * H, probabilities: [0.3], mids: [0.5] }] });
    const others = [
      { forecaster: 'b', t: 0, probabilities: [0.6] },
      { forecaster: 'b', t: 6 * H, probabilities: [0.9] },
    ];
    const s = scoreQuestionLife(question, ctx(others))!;
    expect(s.coverage).toBeCloseTo(0.5, 12);
    // NO: own p = 0.7. Hour 5–6 against 0.4: 100 ln(0.7/0.4); 6–10 against 0.1: 100 ln 7.
    expect(s.peer).toBeCloseTo((100 * Math.log(0.7 / 0.4) + 4 * 100 * Math.log(7)) / 5, 10);
    expect(s.baseline).toBeCloseTo(100 * Math.log2(1.4), 10);
  });

  test('a void is not scored, and a forecast after the close is not either', () => {
    expect(scoreQuestionLife(q({ winner: null }), ctx())).toBeNull();
    expect(scoreQuestionLife(q({ points: [{ t: 11 * H, probabilities: [0.9], mids: [0.5] }] }), ctx())).toBeNull();
  });

  test('a season boundary: a question resolving in March counts its February forecasts over its whole life', () => {
    const feb = Date.parse('2030-02-27T00:00:00Z');
    const close = Date.parse('2030-03-02T00:00:00Z');
    const question = q({
      closedAt: close,
      points: [
        { t: feb, probabilities: [0.6], mids: [0.5] },
        { t: feb + 3 * D - 12 * H, probabilities: [0.9], mids: [0.5] },
      ],
    });
    const s = scoreQuestionLife(question, ctx())!;
    // 0.6 stands 60 h, 0.9 stands 12 h of 72.
    expect(s.baseline).toBeCloseTo((60 * 100 * Math.log2(1.2) + 12 * 100 * Math.log2(1.8)) / 72, 10);
  });

  test('a categorical question: baseline against 1/K, normalised by ln K', () => {
    const question = q({ kind: 'categorical', winner: 2, points: [{ t: 0, probabilities: [0.2, 0.2, 0.6], mids: [null, null, null] }] });
    expect(scoreQuestionLife(question, ctx())!.baseline).toBeCloseTo((100 * Math.log(0.6 * 3)) / Math.log(3), 10);
  });

  test('alpha at fixed horizons: the forecast in force then against the mid then', () => {
    const close = 10 * D;
    const question = q({
      closedAt: close,
      points: [
        { t: 0, probabilities: [0.6], mids: [0.5] },
        { t: close - 2 * H, probabilities: [0.9], mids: [0.5] },
      ],
    });
    const s = scoreQuestionLife(question, ctx([], [0.5, 0.7, 0.8]))!;
    // 7 d and 1 d: own 0.6 (Brier 0.16) against 0.5 (0.25) and 0.7 (0.09); 1 h: own 0.9 (0.01) against 0.8 (0.04).
    expect(s.horizonAlpha[0]).toBeCloseTo(0.09, 12);
    expect(s.horizonAlpha[1]).toBeCloseTo(-0.07, 12);
    expect(s.horizonAlpha[2]).toBeCloseTo(0.03, 12);
    // A question younger than the horizon has no forecast then.
    const young = scoreQuestionLife(q({ closedAt: 10 * H }), ctx([], [0.5, 0.5, 0.5]))!;
    expect(young.horizonAlpha).toEqual([null, null, expect.closeTo(0.25 - 0.04, 12)]);
  });

  test('means over questions with n and an interval; the void left out', () => {
    const qs = [q({ marketId: 'a' }), q({ marketId: 'b', winner: 0 }), q({ marketId: 'c', winner: null })];
    const s = scoreLife(qs, {}, 'seed');
    expect(s.questions).toBe(2);
    expect(s.baseline.n).toBe(2);
    expect(s.baseline.value).toBeCloseTo((100 * Math.log2(1.6) + 100 * Math.log2(0.4)) / 2, 10);
    expect(s.baseline.low).not.toBeNull();
    expect(s.horizons.map((h) => h.horizon)).toEqual(['7d', '1d', '1h']);
  });

  test('property: the scores equal the hour-by-hour computation for random forecasters on whole hours', () => {
    const point = fc.record({ hour: fc.integer({ min: 0, max: 24 }), p: fc.integer({ min: 0, max: 100 }).map((x) => x / 100) });
    fc.assert(
      fc.property(
        fc.array(point, { minLength: 1, maxLength: 5 }),
        fc.array(fc.tuple(fc.constantFrom('b', 'c', 'd'), point), { maxLength: 8 }),
        fc.integer({ min: 0, max: 1 }),
        (own, others, winner) => {
          const question = q({ winner, closedAt: 24 * H, points: own.map((o) => ({ t: o.hour * H, probabilities: [o.p], mids: [0.5] })) });
          const peers = others.map(([f, o]) => ({ forecaster: f, t: o.hour * H, probabilities: [o.p] }));
          const s = scoreQuestionLife(question, ctx(peers));
          const first = Math.min(...own.map((o) => o.hour));
          if (first >= 24) return; // only a forecast at the close: scored at that instant, not hour by hour
          const expected = byTheHour(
            { ...question, points: [...question.points].sort((a, b) => a.t - b.t) },
            [...peers]
              .map((p, i) => ({ p, i }))
              .sort((a, b) => a.p.t - b.p.t || a.i - b.i)
              .map(({ p }) => p),
          );
          expect(s!.baseline).toBeCloseTo(expected.baseline, 8);
          expect(s!.peer).toBeCloseTo(expected.peer, 8);
          expect(s!.coverage).toBeCloseTo(expected.coverage, 12);
        },
      ),
    );
  });
});
