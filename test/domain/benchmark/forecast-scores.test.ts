import { wilsonInterval } from '../../../src/domain/benchmark/statistics';
import fc from 'fast-check';
import {
  calibrationBin,
  LOG_SCORE_FLOOR,
  scoreAlpha,
  scoreForecasts,
  scoreHeadline,
  type ForecastScores,
  type ResolvedQuestion,
  type StatedPoint,
} from '../../../src/domain/benchmark/forecast-scores';
import type { Estimate } from '../../../src/domain/benchmark/estimate';

const HOUR = 3_600_000;

function binary(marketId: string, winner: number | null, points: Array<[t: number, p: number, mid?: number | null]>, closedAt = 100 * HOUR): ResolvedQuestion {
  return {
    marketId,
    kind: 'binary',
    winner,
    closedAt,
    points: points.map(([t, p, mid]) => ({ t, probabilities: [p], mids: [mid === undefined ? p : mid] })),
  };
}

function categorical(marketId: string, winner: number | null, points: StatedPoint[], closedAt = 100 * HOUR): ResolvedQuestion {
  return { marketId, kind: 'categorical', winner, closedAt, points };
}

describe('hand-computed scores', () => {
  it('when a binary forecast of 0.7 resolves YES, Brier is 0.09 and log is ln 0.7; a market at 0.6 gives alpha 0.07', () => {
    // Brier = (0.7 − 1)² = 0.09; market (0.6 − 1)² = 0.16; alpha = 0.16 − 0.09 = 0.07; log ln 0.7 and ln 0.6.
    const s = scoreForecasts([binary('m', 1, [[0, 0.7, 0.6]])], 'x');
    expect(s.brier.value).toBeCloseTo(0.09, 12);
    expect(s.logScore.value).toBeCloseTo(Math.log(0.7), 12);
    expect(s.marketBrier.value).toBeCloseTo(0.16, 12);
    expect(s.marketLogScore.value).toBeCloseTo(Math.log(0.6), 12);
    expect(s.alpha.value).toBeCloseTo(0.07, 12);
    // One point, in force the whole life: the time average is the final.
    expect(s.brierTimeAveraged.value).toBeCloseTo(0.09, 12);
    expect(s.alphaTimeAveraged.value).toBeCloseTo(0.07, 12);
  });

  it('when a binary forecast of 0.7 resolves NO, Brier is 0.49 and log is ln 0.3', () => {
    const s = scoreForecasts([binary('m', 0, [[0, 0.7]])], 'x');
    expect(s.brier.value).toBeCloseTo(0.49, 12);
    expect(s.logScore.value).toBeCloseTo(Math.log(0.3), 12);
  });

  it('time-averages three points by how long each was in force, the last until close', () => {
    // YES; 0.5 for 10 h, 0.8 for 30 h, 0.9 for 60 h (close at 100 h).
    // Briers 0.25, 0.04, 0.01 → (10·0.25 + 30·0.04 + 60·0.01) / 100 = (2.5 + 1.2 + 0.6) / 100 = 0.043; final 0.01.
    // Market mids 0.4, 0.6, 0.7 → Briers 0.36, 0.16, 0.09 → (3.6 + 4.8 + 5.4) / 100 = 0.138; alpha TA = 0.138 − 0.043 = 0.095.
    const q = binary('m', 1, [
      [0, 0.5, 0.4],
      [10 * HOUR, 0.8, 0.6],
      [40 * HOUR, 0.9, 0.7],
    ]);
    const s = scoreForecasts([q], 'x');
    expect(s.brier.value).toBeCloseTo(0.01, 12);
    expect(s.brierTimeAveraged.value).toBeCloseTo(0.043, 12);
    expect(s.logScoreTimeAveraged.value).toBeCloseTo((10 * Math.log(0.5) + 30 * Math.log(0.8) + 60 * Math.log(0.9)) / 100, 12);
    expect(s.marketBrierTimeAveraged.value).toBeCloseTo(0.138, 12);
    expect(s.alpha.value).toBeCloseTo(0.09 - 0.01, 12);
    expect(s.alphaTimeAveraged.value).toBeCloseTo(0.095, 12);
    expect(s.forecasts).toBe(3);
  });

  it('scores a three-outcome market with ½ Σ (p_i − o_i)² and the mids renormalised', () => {
    // Forecast [0.2, 0.5, 0.3], outcome 1 won: ½ (0.04 + 0.25 + 0.09) = 0.19; log ln 0.5.
    // Mids [0.3, 0.3, 0.2] sum 0.8 → [0.375, 0.375, 0.25]: ½ (0.140625 + 0.390625 + 0.0625) = 0.296875; log ln 0.375.
    // alpha = 0.296875 − 0.19 = 0.106875.
    const s = scoreForecasts([categorical('c', 1, [{ t: 0, probabilities: [0.2, 0.5, 0.3], mids: [0.3, 0.3, 0.2] }])], 'x');
    expect(s.brier.value).toBeCloseTo(0.19, 12);
    expect(s.logScore.value).toBeCloseTo(Math.log(0.5), 12);
    expect(s.marketBrier.value).toBeCloseTo(0.296875, 12);
    expect(s.marketLogScore.value).toBeCloseTo(Math.log(0.375), 12);
    expect(s.alpha.value).toBeCloseTo(0.106875, 12);
    // Three calibration pairs: (0.2, 0), (0.5, 1), (0.3, 0).
    expect(s.murphy.pairs).toBe(3);
    expect(s.reliabilityTable.map((b) => [b.binLow, b.n, b.observedFrequency])).toEqual([
      [0.2, 1, 0],
      [0.3, 1, 0],
      [0.5, 1, 1],
    ]);
  });

  it('averages over questions: 0.09 and 0.49 give Brier 0.29', () => {
    const s = scoreForecasts([binary('a', 1, [[0, 0.7]]), binary('b', 0, [[0, 0.7]])], 'x');
    expect(s.brier.value).toBeCloseTo(0.29, 12);
    expect(s.brier.n).toBe(2);
    expect(s.questions).toBe(2);
  });

  it('decomposes Brier by Murphy on a hand set whose bins each hold one forecast value', () => {
    // Finals (P(YES), outcome): (0.05,0) (0.05,0) (0.15,1) (0.75,1) (0.75,0) (0.75,1) (0.95,1); N = 7, ō = 4/7.
    // Bins: 0 → n 2, f̄ .05, ō 0; 1 → n 1, f̄ .15, ō 1; 7 → n 3, f̄ .75, ō 2/3; 9 → n 1, f̄ .95, ō 1.
    // REL = (2·.05² + .85² + 3·(1/12)² + .05²) / 7 = (0.005 + 0.7225 + 0.0208333 + 0.0025) / 7 = 0.7508333 / 7
    // RES = (2·(4/7)² + (3/7)² + 3·(2/21)² + (3/7)²) / 7 = (50/49 + 12/441) / 7 = 66/441
    // UNC = 4/7 · 3/7 = 12/49
    // Brier = (.0025 + .0025 + .7225 + .0625 + .5625 + .0625 + .0025) / 7 = 1.4175 / 7 = 0.2025 = REL − RES + UNC
    // ECE = (2·.05 + .85 + 3·(1/12) + .05) / 7 = 1.25 / 7
    const finals: Array<[number, number]> = [
      [0.05, 0],
      [0.05, 0],
      [0.15, 1],
      [0.75, 1],
      [0.75, 0],
      [0.75, 1],
      [0.95, 1],
    ];
    const s = scoreForecasts(
      finals.map(([p, o], i) => binary(`m${i}`, o, [[0, p]])),
      'x',
    );
    const { reliability, resolution, uncertainty } = s.murphy;
    expect(reliability.value).toBeCloseTo((0.73 + 3 / 144) / 7, 12);
    expect(resolution.value).toBeCloseTo(66 / 441, 12);
    expect(uncertainty.value).toBeCloseTo(12 / 49, 12);
    expect(s.brier.value).toBeCloseTo(0.2025, 12);
    expect(Math.abs(reliability.value! - resolution.value! + uncertainty.value! - s.brier.value!)).toBeLessThan(1e-12);
    expect(s.calibrationError.value).toBeCloseTo(1.25 / 7, 12);
    const bin7 = s.reliabilityTable.find((b) => b.binLow === 0.7)!;
    expect(bin7).toMatchObject({ n: 3, binHigh: 0.8 });
    expect(bin7.meanForecast).toBeCloseTo(0.75, 12);
    expect(bin7.observedFrequency).toBeCloseTo(2 / 3, 12);
    expect(s.reliabilityTable.map((b) => b.n)).toEqual([2, 1, 3, 1]);
  });

  it('holds the Murphy identity on a mixed binary and categorical set with one value per bin', () => {
    // Pairs: binary 0.25 YES → (0.25,1); categorical [0.25, 0.25, 0.5] won by 2 → (0.25,0) (0.25,0) (0.5,1);
    // categorical [0.5, 0.5] won by 0 → (0.5,1) (0.5,0). Pair MSE = (0.5625 + 0.0625 + 0.0625 + 0.25 + 0.25 + 0.25) / 6.
    const s = scoreForecasts(
      [
        binary('b', 1, [[0, 0.25]]),
        categorical('c3', 2, [{ t: 0, probabilities: [0.25, 0.25, 0.5], mids: [null, null, null] }]),
        categorical('c2', 0, [{ t: 0, probabilities: [0.5, 0.5], mids: [0.5, 0.5] }]),
      ],
      'x',
    );
    const mse = (0.5625 + 0.0625 + 0.0625 + 0.25 + 0.25 + 0.25) / 6;
    const { reliability, resolution, uncertainty } = s.murphy;
    expect(Math.abs(reliability.value! - resolution.value! + uncertainty.value! - mse)).toBeLessThan(1e-12);
  });
});

describe('edge cases', () => {
  it('when there is one forecast, every interval is null', () => {
    const s = scoreForecasts([binary('m', 1, [[0, 0.7]])], 'x');
    for (const e of estimates(s)) {
      expect(e.low).toBeNull();
      expect(e.high).toBeNull();
    }
    expect(s.brier.n).toBe(1);
  });

  it('when forecasts are certain, a right one scores 0 and a wrong one Brier 1 and log ln 0.001', () => {
    expect(LOG_SCORE_FLOOR).toBe(0.001);
    const right = scoreForecasts([binary('a', 1, [[0, 1]]), binary('b', 0, [[0, 0]])], 'x');
    expect(right.brier.value).toBe(0);
    expect(right.logScore.value).toBe(0);
    const wrong = scoreForecasts([binary('a', 0, [[0, 1]]), binary('b', 1, [[0, 0]])], 'x');
    expect(wrong.brier.value).toBe(1);
    expect(wrong.logScore.value).toBeCloseTo(Math.log(0.001), 12);
    const cat = scoreForecasts([categorical('c', 2, [{ t: 0, probabilities: [1, 0, 0], mids: [1, 0, 0] }])], 'x');
    expect(cat.brier.value).toBe(1);
    expect(cat.logScore.value).toBeCloseTo(Math.log(0.001), 12);
    expect(cat.marketLogScore.value).toBeCloseTo(Math.log(0.001), 12);
  });

  it('when a market is VOID, it is skipped and counted in voided', () => {
    const s = scoreForecasts([binary('v', null, [[0, 0.9]]), binary('m', 1, [[0, 0.7]]), categorical('c', null, [])], 'x');
    expect(s.voided).toBe(2);
    expect(s.questions).toBe(1);
    expect(s.forecasts).toBe(1);
    expect(s.brier.value).toBeCloseTo(0.09, 12);
  });

  it('when a forecast is replaced many times, only the last is final and each weighs its time in force', () => {
    // 50 points an hour apart: 0.02·i for i < 49, the last (at 49 h) 0.9; close at 100 h, YES.
    const points: Array<[number, number]> = Array.from({ length: 50 }, (_, i) => [i * HOUR, i === 49 ? 0.9 : 0.02 * i]);
    const s = scoreForecasts([binary('m', 1, points)], 'x');
    expect(s.brier.value).toBeCloseTo(0.01, 12);
    let weighted = 0;
    for (let i = 0; i < 49; i++) weighted += (0.02 * i - 1) ** 2;
    weighted += 51 * 0.01;
    expect(s.brierTimeAveraged.value).toBeCloseTo(weighted / 100, 12);
    expect(s.forecasts).toBe(50);
  });

  it('when points come out of order, they are taken in time order; of two at one instant the later given replaces the earlier', () => {
    // Given 0.8 at 10 h, then 0.5 at 0 h, then 0.6 at 10 h: in force 0.5 for 10 h, then 0.6 for 90 h (the 0.8 for none).
    // YES: final (0.6 − 1)² = 0.16; time average (10·0.25 + 90·0.16) / 100 = 0.169.
    const s = scoreForecasts(
      [
        binary('m', 1, [
          [10 * HOUR, 0.8],
          [0, 0.5],
          [10 * HOUR, 0.6],
        ]),
      ],
      'x',
    );
    expect(s.brier.value).toBeCloseTo(0.16, 12);
    expect(s.brierTimeAveraged.value).toBeCloseTo(0.169, 12);
  });

  it('when a point comes after close, it is ignored', () => {
    // 0.6 from 0 to 100 h; the 0.99 at 150 h would be final if counted.
    const s = scoreForecasts(
      [
        binary(
          'm',
          1,
          [
            [0, 0.6],
            [150 * HOUR, 0.99],
          ],
          100 * HOUR,
        ),
      ],
      'x',
    );
    expect(s.brier.value).toBeCloseTo(0.16, 12);
    expect(s.brierTimeAveraged.value).toBeCloseTo(0.16, 12);
    expect(s.forecasts).toBe(1);
  });

  it('when the only point is at close, it is the final and the time average is that final', () => {
    const s = scoreForecasts([binary('m', 0, [[100 * HOUR, 0.2]], 100 * HOUR)], 'x');
    expect(s.brier.value).toBeCloseTo(0.04, 12);
    expect(s.brierTimeAveraged.value).toBeCloseTo(0.04, 12);
    expect(s.logScoreTimeAveraged.value).toBeCloseTo(Math.log(0.8), 12);
  });

  it('when a point at close follows others, it is final but weighs nothing in the time average', () => {
    // 0.5 from 0 to 100 h, then 0.9 at 100 h (close). Final (0.9 − 1)² = 0.01; time average 0.25.
    const s = scoreForecasts(
      [
        binary(
          'm',
          1,
          [
            [0, 0.5],
            [100 * HOUR, 0.9],
          ],
          100 * HOUR,
        ),
      ],
      'x',
    );
    expect(s.brier.value).toBeCloseTo(0.01, 12);
    expect(s.brierTimeAveraged.value).toBeCloseTo(0.25, 12);
  });

  it('when a mid is null, that question has no market score and alpha counts only the others', () => {
    const s = scoreForecasts(
      [
        binary('a', 1, [[0, 0.7, 0.6]]),
        binary('b', 1, [
          [0, 0.7, 0.5],
          [HOUR, 0.8, null],
        ]),
      ],
      'x',
    );
    expect(s.questions).toBe(2);
    expect(s.marketQuestions).toBe(1);
    expect(s.brier.n).toBe(2);
    expect(s.marketBrier).toEqual({ value: expect.closeTo(0.16, 12), n: 1, low: null, high: null });
    expect(s.alpha.n).toBe(1);
    expect(s.alpha.value).toBeCloseTo(0.07, 12);
  });

  it('when there is nothing to score, every value is null with n 0', () => {
    const s = scoreForecasts([], 'x');
    for (const e of estimates(s)) expect(e).toEqual({ value: null, n: 0, low: null, high: null });
    expect(s).toMatchObject({ questions: 0, voided: 0, forecasts: 0, reliabilityTable: [] });
  });

  it('when a question has no point before close, it is not scored and counted in unforecast', () => {
    const s = scoreForecasts([binary('m', 1, [[200 * HOUR, 0.7]], 100 * HOUR), binary('n', 1, [])], 'x');
    expect(s).toMatchObject({ questions: 0, unforecast: 2, voided: 0 });
  });

  it('when a stated forecast is malformed, it throws', () => {
    expect(() => scoreForecasts([binary('m', 1, [[0, 1.2]])], 'x')).toThrow(RangeError);
    expect(() => scoreForecasts([categorical('c', 0, [{ t: 0, probabilities: [0.5, 0.2], mids: [0.5, 0.5] }])], 'x')).toThrow(RangeError);
    expect(() => scoreForecasts([categorical('c', 3, [{ t: 0, probabilities: [0.5, 0.5], mids: [0.5, 0.5] }])], 'x')).toThrow(RangeError);
  });

  it('puts a bin edge in the bin it opens and 1.0 in the last', () => {
    expect([0, 0.0999, 0.1, 0.3, 0.7, 0.9, 0.95, 1].map(calibrationBin)).toEqual([0, 0, 1, 3, 7, 9, 9, 9]);
    // The double just below 0.9: 10 × it rounds to 9.0, so Math.floor alone would put it in the bin it is below.
    expect(calibrationBin(0.8999999999999999)).toBe(8);
  });
});

describe('intervals', () => {
  it('gives the Wilson interval of 7 of 10 as [0.3968, 0.8922]', () => {
    const w = wilsonInterval(7, 10)!;
    expect(w.low).toBeCloseTo(0.3968, 4);
    expect(w.high).toBeCloseTo(0.8922, 4);
    expect(wilsonInterval(0, 5)!.low).toBe(0);
    expect(wilsonInterval(0, 0)).toBeNull();
  });

  it('is repeatable for a seed label and differs across labels', () => {
    const qs = Array.from({ length: 30 }, (_, i) => binary(`m${i}`, i % 3 === 0 ? 0 : 1, [[0, (i % 10) / 10 + 0.05]]));
    expect(scoreForecasts(qs, 'a')).toEqual(scoreForecasts(qs, 'a'));
    expect(scoreForecasts(qs, 'a').brier.low).not.toBe(scoreForecasts(qs, 'b').brier.low);
  });

  it('when alpha alone is scored (scoreAlpha), then it is scoreForecasts’ alpha, interval and n included, VOID, unforecast and mid-less questions left out alike', () => {
    const qs = [
      ...Array.from({ length: 30 }, (_, i) => binary(`m${i}`, i % 3 === 0 ? 0 : 1, [[0, (i % 10) / 10 + 0.05, 0.5 + (i % 7) / 20]])),
      binary('void', null, [[0, 0.3]]),
      binary('late', 1, [[200 * HOUR, 0.3]]),
      binary('nomid', 1, [[0, 0.3, null]]),
    ];
    const full = scoreForecasts(qs, 'a');
    expect(scoreAlpha(qs, 'a')).toEqual({ questions: full.questions, alpha: full.alpha });
    expect(full.alpha.n).toBe(30);
    expect(full.questions).toBe(31);
  });

  it('when only the headline figures are scored (scoreHeadline, for categories and the entry-price basis), then they are scoreForecasts’ own', () => {
    const qs = [
      ...Array.from({ length: 12 }, (_, i) => binary(`m${i}`, i % 4 === 0 ? 0 : 1, [[0, (i % 9) / 10 + 0.05, 0.4 + (i % 5) / 10]])),
      binary('void', null, [[0, 0.3]]),
      binary('nomid', 0, [[0, 0.7, null]]),
    ];
    const full = scoreForecasts(qs, 'h');
    expect(scoreHeadline(qs, 'h')).toEqual({ questions: full.questions, brier: full.brier, logScore: full.logScore, alpha: full.alpha });
    expect(scoreHeadline([], 'h')).toEqual({
      questions: 0,
      brier: scoreForecasts([], 'h').brier,
      logScore: scoreForecasts([], 'h').logScore,
      alpha: scoreForecasts([], 'h').alpha,
    });
  });
});

function estimates(s: ForecastScores): Estimate[] {
  return [
    s.brier,
    s.logScore,
    s.brierTimeAveraged,
    s.logScoreTimeAveraged,
    s.marketBrier,
    s.marketLogScore,
    s.marketBrierTimeAveraged,
    s.marketLogScoreTimeAveraged,
    s.alpha,
    s.alphaTimeAveraged,
    s.murphy.reliability,
    s.murphy.resolution,
    s.murphy.uncertainty,
    s.calibrationError,
  ];
}

/**
 * An independent implementation, written the long way: expand every question into its usable points, score each with
 * the binary and categorical formulas written out separately, and group calibration pairs into lists per bin.
 */
function reference(questions: ResolvedQuestion[]) {
  const agent = { brier: [] as number[], log: [] as number[], brierTA: [] as number[], logTA: [] as number[] };
  const market = { brier: [] as number[], log: [] as number[], brierTA: [] as number[], logTA: [] as number[], alpha: [] as number[], alphaTA: [] as number[] };
  const pairs: Array<{ f: number; o: number }> = [];
  let voided = 0;
  let forecasts = 0;
  for (const q of questions) {
    if (q.winner === null) {
      voided++;
      continue;
    }
    const used: StatedPoint[] = [];
    for (const p of q.points) if (p.t <= q.closedAt) used.push(p);
    if (used.length === 0) continue;
    forecasts += used.length;
    const w = q.winner;
    const agentScore = (probs: number[]) => {
      if (q.kind === 'binary') {
        const p = probs[0]!;
        const o = w === 1 ? 1 : 0;
        const pWin = w === 1 ? p : 1 - p;
        return { brier: (p - o) * (p - o), log: Math.log(pWin < 0.001 ? 0.001 : pWin) };
      }
      let sq = 0;
      for (let i = 0; i < probs.length; i++) sq += i === w ? (1 - probs[i]!) ** 2 : probs[i]! ** 2;
      return { brier: 0.5 * sq, log: Math.log(Math.max(0.001, probs[w]!)) };
    };
    const marketScore = (mids: Array<number | null>) => {
      if (mids.some((m) => m === null)) return null;
      let total = 0;
      for (const m of mids) total += m!;
      return agentScore(q.kind === 'binary' ? [mids[0]!] : mids.map((m) => m! / total));
    };
    let dur = 0;
    let aB = 0;
    let aL = 0;
    let mB = 0;
    let mL = 0;
    let marketOk = true;
    for (let j = 0; j < used.length; j++) {
      const end = j === used.length - 1 ? q.closedAt : used[j + 1]!.t;
      const d = end - used[j]!.t;
      const a = agentScore(used[j]!.probabilities);
      const m = marketScore(used[j]!.mids);
      dur += d;
      aB += d * a.brier;
      aL += d * a.log;
      if (m === null) marketOk = false;
      else {
        mB += d * m.brier;
        mL += d * m.log;
      }
    }
    const last = used[used.length - 1]!;
    const fa = agentScore(last.probabilities);
    agent.brier.push(fa.brier);
    agent.log.push(fa.log);
    agent.brierTA.push(dur === 0 ? fa.brier : aB / dur);
    agent.logTA.push(dur === 0 ? fa.log : aL / dur);
    if (marketOk) {
      const fm = marketScore(last.mids)!;
      const mbTA = dur === 0 ? fm.brier : mB / dur;
      market.brier.push(fm.brier);
      market.log.push(fm.log);
      market.brierTA.push(mbTA);
      market.logTA.push(dur === 0 ? fm.log : mL / dur);
      market.alpha.push(fm.brier - fa.brier);
      market.alphaTA.push(mbTA - (dur === 0 ? fa.brier : aB / dur));
    }
    if (q.kind === 'binary') pairs.push({ f: last.probabilities[0]!, o: w });
    else last.probabilities.forEach((f, i) => pairs.push({ f, o: i === w ? 1 : 0 }));
  }
  const avg = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((s, x) => s + x, 0) / xs.length);
  const bins: Array<Array<{ f: number; o: number }>> = Array.from({ length: 10 }, () => []);
  for (const pr of pairs) {
    for (let k = 9; k >= 0; k--) {
      if (pr.f >= k / 10) {
        bins[k]!.push(pr);
        break;
      }
    }
  }
  const N = pairs.length;
  const obar = N === 0 ? 0 : pairs.reduce((s, p) => s + p.o, 0) / N;
  let rel = 0;
  let res = 0;
  let ece = 0;
  for (const b of bins) {
    if (b.length === 0) continue;
    const fk = b.reduce((s, p) => s + p.f, 0) / b.length;
    const ok = b.reduce((s, p) => s + p.o, 0) / b.length;
    rel += (b.length * (fk - ok) ** 2) / N;
    res += (b.length * (ok - obar) ** 2) / N;
    ece += (b.length * Math.abs(fk - ok)) / N;
  }
  const pairMse = N === 0 ? null : pairs.reduce((s, p) => s + (p.f - p.o) ** 2, 0) / N;
  return {
    voided,
    forecasts,
    questions: agent.brier.length,
    brier: avg(agent.brier),
    logScore: avg(agent.log),
    brierTimeAveraged: avg(agent.brierTA),
    logScoreTimeAveraged: avg(agent.logTA),
    marketBrier: avg(market.brier),
    marketLogScore: avg(market.log),
    marketBrierTimeAveraged: avg(market.brierTA),
    marketLogScoreTimeAveraged: avg(market.logTA),
    alpha: avg(market.alpha),
    alphaTimeAveraged: avg(market.alphaTA),
    marketQuestions: market.brier.length,
    reliability: N === 0 ? null : rel,
    resolution: N === 0 ? null : res,
    uncertainty: N === 0 ? null : obar * (1 - obar),
    calibrationError: N === 0 ? null : ece,
    pairMse,
    pairs: N,
    binCounts: bins.map((b) => b.length).filter((n) => n > 0),
  };
}

const probability: fc.Arbitrary<number> = fc.oneof(fc.constantFrom(0, 0.1, 0.3, 0.5, 0.7, 0.9, 1), fc.double({ min: 0, max: 1, noNaN: true }));
const mid = fc.oneof({ weight: 5, arbitrary: probability }, { weight: 1, arbitrary: fc.constant(null) });

/** Points in time order (each gap ≥ 0, so equal instants occur), some after close. */
const question = (index: number): fc.Arbitrary<ResolvedQuestion> =>
  fc
    .record({
      kind: fc.constantFrom<'binary' | 'categorical'>('binary', 'categorical'),
      outcomes: fc.integer({ min: 2, max: 5 }),
      voided: fc.integer({ min: 0, max: 9 }).map((x) => x < 2),
      winnerSeed: fc.nat(),
      closedAt: fc.integer({ min: 0, max: 100 }),
      gaps: fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 6 }),
      weights: fc.array(fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 5, maxLength: 5 }), { minLength: 6, maxLength: 6 }),
      ps: fc.array(probability, { minLength: 6, maxLength: 6 }),
      mids: fc.array(fc.array(mid, { minLength: 5, maxLength: 5 }), { minLength: 6, maxLength: 6 }),
    })
    .map((r) => {
      const n = r.kind === 'binary' ? 2 : r.outcomes;
      let t = 0;
      const points: StatedPoint[] = r.gaps.map((g, j) => {
        t += g;
        if (r.kind === 'binary') return { t, probabilities: [r.ps[j]!], mids: [r.mids[j]![0]!] };
        const w = r.weights[j]!.slice(0, n).map((x, i) => (i === 0 ? x + 1 : x));
        const total = w.reduce((s, x) => s + x, 0);
        const mids: Array<number | null> = r.mids[j]!.slice(0, n);
        // A categorical mid vector of all zeros is no forecast; keep the generated ones usable or null.
        if (!mids.some((m) => m !== 0)) mids[0] = 0.5;
        return { t, probabilities: w.map((x) => x / total), mids };
      });
      return {
        marketId: `q${index}`,
        kind: r.kind,
        winner: r.voided ? null : r.winnerSeed % n,
        closedAt: r.closedAt,
        points,
      };
    });

const questionSet = fc.integer({ min: 0, max: 12 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => question(i))));

describe('against an independent implementation', () => {
  it('agrees on every figure for generated questions', () => {
    fc.assert(
      fc.property(questionSet, (qs) => {
        const s = scoreForecasts(qs, 'prop');
        const r = reference(qs);
        expect(s.voided).toBe(r.voided);
        expect(s.forecasts).toBe(r.forecasts);
        expect(s.questions).toBe(r.questions);
        expect(s.marketQuestions).toBe(r.marketQuestions);
        const close = (e: Estimate, v: number | null, n: number) => {
          expect(e.n).toBe(n);
          if (v === null) expect(e.value).toBeNull();
          else expect(Math.abs(e.value! - v)).toBeLessThan(1e-9);
          if (n <= 1) expect(e.low).toBeNull();
          if (e.low !== null) {
            expect(e.low).toBeLessThanOrEqual(e.high!);
            expect(e.low).toBeLessThanOrEqual(e.value! + 1e-12);
            expect(e.high).toBeGreaterThanOrEqual(e.value! - 1e-12);
          }
        };
        close(s.brier, r.brier, r.questions);
        close(s.logScore, r.logScore, r.questions);
        close(s.brierTimeAveraged, r.brierTimeAveraged, r.questions);
        close(s.logScoreTimeAveraged, r.logScoreTimeAveraged, r.questions);
        close(s.marketBrier, r.marketBrier, r.marketQuestions);
        close(s.marketLogScore, r.marketLogScore, r.marketQuestions);
        close(s.marketBrierTimeAveraged, r.marketBrierTimeAveraged, r.marketQuestions);
        close(s.marketLogScoreTimeAveraged, r.marketLogScoreTimeAveraged, r.marketQuestions);
        close(s.alpha, r.alpha, r.marketQuestions);
        close(s.alphaTimeAveraged, r.alphaTimeAveraged, r.marketQuestions);
        close(s.murphy.reliability, r.reliability, r.questions);
        close(s.murphy.resolution, r.resolution, r.questions);
        close(s.murphy.uncertainty, r.uncertainty, r.questions);
        close(s.calibrationError, r.calibrationError, r.questions);
        expect(s.murphy.pairs).toBe(r.pairs);
        expect(s.reliabilityTable.map((b) => b.n)).toEqual(r.binCounts);
        for (const b of s.reliabilityTable) {
          expect(b.low).toBeLessThanOrEqual(b.observedFrequency + 1e-12);
          expect(b.high).toBeGreaterThanOrEqual(b.observedFrequency - 1e-12);
        }
      }),
      // Each run bootstraps fourteen figures, and Jest's guarded Math makes that slow here: 80 runs keep this to seconds.
      { numRuns: 80 },
    );
  });

  it('holds Brier = REL − RES + UNC exactly when each bin holds one forecast value', () => {
    const centre = fc.integer({ min: 0, max: 9 }).map((k) => k / 10 + 0.05);
    fc.assert(
      fc.property(fc.array(fc.tuple(centre, fc.boolean()), { minLength: 1, maxLength: 60 }), (finals) => {
        const s = scoreForecasts(
          finals.map(([p, yes], i) => binary(`m${i}`, yes ? 1 : 0, [[0, p]])),
          'identity',
        );
        const { reliability, resolution, uncertainty } = s.murphy;
        expect(Math.abs(reliability.value! - resolution.value! + uncertainty.value! - s.brier.value!)).toBeLessThan(1e-12);
      }),
      { numRuns: 30 },
    );
  });
});
