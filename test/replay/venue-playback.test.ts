import { SUITE_V1, SUITES, scenariosOf } from '../../src/domain/replay/replay-suite';
import { playBack, playBackSuite, type PlaybackSuite } from '../../src/replay/venue-playback';
import { TEST_MASTER } from '../support/sealed-venue';
import { readerPushes } from '../../src/replay/reference-agents';

// The proof of issue 35 item 4 over the whole of suite-v1 (20 seeds × 30 days), played back from the venue: seconds, where
// stepped API runs would take hours. test/replay/reference-agents.test.ts ties playback to real runs.
jest.setTimeout(120_000);

const scenarios = scenariosOf(SUITE_V1);
const logit = (p: number) => Math.log(p / (1 - p));
/** t(0.975, 19), from a printed table (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.2): the 20 scenarios' 95 % quantile. */
const T_975_19 = 2.093;

describe('venue playback of the reference agents over suite-v1', () => {
  let reader: PlaybackSuite;
  let market: PlaybackSuite;
  let against: PlaybackSuite;
  let keyword: PlaybackSuite;

  beforeAll(() => {
    ({
      news_reader: reader,
      market,
      against_news: against,
      keyword_reader: keyword,
    } = playBackSuite(TEST_MASTER, ['news_reader', 'market', 'against_news', 'keyword_reader'], scenarios, SUITE_V1.name));
  });

  test('when the keyword reference is played beside the news-reader, then the news-reader’s interval lies above the keyword reader’s point estimate and above 0, pooled and per scenario mean', () => {
    expect(keyword.alpha.n).toBeGreaterThan(1000);
    expect(reader.alpha.low!).toBeGreaterThan(keyword.alpha.value!);
    expect(reader.alpha.low!).toBeGreaterThan(0);
    expect(reader.meanAlpha.low!).toBeGreaterThan(keyword.meanAlpha.value!);
  });

  test('when the news-reader is played over the suite, then its alpha is above zero with its whole interval above zero, pooled and per scenario mean', () => {
    expect(reader.runs).toHaveLength(20);
    expect(reader.alpha.n).toBeGreaterThan(2000);
    expect(reader.alpha.value!).toBeGreaterThan(0);
    expect(reader.alpha.low!).toBeGreaterThan(0);
    expect(reader.meanAlpha.n).toBe(20);
    expect(reader.meanAlpha.low!).toBeGreaterThan(0);
  });

  test('when the market is played over the suite, then its alpha is exactly 0 in every scenario and its interval contains 0', () => {
    for (const r of market.runs) {
      expect(r.alpha.n).toBeGreaterThan(0);
      expect(r.alpha).toMatchObject({ value: 0, low: 0, high: 0 });
    }
    expect(market.alpha.value).toBe(0);
    expect(market.alpha.low!).toBeLessThanOrEqual(0);
    expect(market.alpha.high!).toBeGreaterThanOrEqual(0);
    expect(market.meanAlpha).toMatchObject({ value: 0, low: 0, high: 0 });
  });

  test('when the news-reader pushes against the news, then its alpha is below zero with its interval below zero', () => {
    expect(against.alpha.value!).toBeLessThan(0);
    expect(against.alpha.high!).toBeLessThan(0);
    expect(against.meanAlpha.high!).toBeLessThan(0);
    // The same items, stamped with the same mids: only the direction differs.
    expect(against.alpha.n).toBe(reader.alpha.n);
  });

  test('when the figures are recomputed by hand, then the pooled alpha and the t-interval across scenarios agree', () => {
    // Pooled: Σ alphaᵢ·nᵢ / Σ nᵢ over the scenarios' records.
    const n = reader.runs.reduce((s, r) => s + r.alpha.n, 0);
    expect(reader.alpha.n).toBe(n);
    expect(reader.alpha.value!).toBeCloseTo(reader.runs.reduce((s, r) => s + r.alpha.value! * r.alpha.n, 0) / n, 12);
    // Across scenarios: mean ± t(0.975, 19) · s / √20 with the tabulated quantile (3 decimals: agrees to about 1e-4 of the half-width).
    const xs = reader.runs.map((r) => r.alpha.value!);
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const s = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
    const half = (T_975_19 * s) / Math.sqrt(xs.length);
    expect(reader.meanAlpha.value!).toBeCloseTo(mean, 12);
    expect(Math.abs(reader.meanAlpha.low! - (mean - half))).toBeLessThan(half * 1e-3);
    expect(Math.abs(reader.meanAlpha.high! - (mean + half))).toBeLessThan(half * 1e-3);
    expect(mean - half).toBeGreaterThan(0);
  });

  test('when the news-reader states a forecast, then it is its mid moved by one of its pushes, and the whole venue gives the same record and a superset of forecasts', () => {
    const run = reader.runs[3]!;
    expect(run.forecasts.length).toBeGreaterThan(500);
    for (const f of run.forecasts) {
      const p = Number(f.probabilityMicro) / 1e6;
      if (p === 0.01 || p === 0.99) continue;
      const move = Math.abs(logit(p) - logit(Number(f.midMicro) / 1e6));
      expect(Math.min(...readerPushes().map((push) => Math.abs(move - push)))).toBeLessThan(1e-3);
    }
    // The suite plays only the markets that resolve in the window; the whole venue adds forecasts on the others alone.
    const whole = playBack(TEST_MASTER, 'news_reader', scenarios[3]!);
    expect(whole.alpha).toEqual(run.alpha);
    const scored = new Set(run.forecasts.map((f) => f.marketId));
    expect(whole.forecasts.filter((f) => scored.has(f.marketId))).toEqual(run.forecasts);
    expect(whole.forecasts.length).toBeGreaterThan(run.forecasts.length);
  });
});

// The bar of issue 49 item 2 on the newest suite, the one agents play (docs/replay.md prints its figures).
const newest = SUITES[SUITES.length - 1]!;

describe(`venue playback of the reference agents over ${newest.name}, the newest suite`, () => {
  test('when the references are played side by side, then the news-reader’s interval lies above 0 and above the keyword reader’s point estimate, and the market’s alpha is 0 within its interval', () => {
    const episodes = scenariosOf(newest);
    const played = playBackSuite(TEST_MASTER, ['news_reader', 'keyword_reader', 'market'], episodes, newest.name);
    const { news_reader: reader, keyword_reader: keyword, market } = played;
    expect(reader.runs).toHaveLength(episodes.length);
    expect(reader.alpha.n).toBeGreaterThan(1000);
    expect(reader.alpha.low!).toBeGreaterThan(0);
    expect(reader.alpha.low!).toBeGreaterThan(keyword.alpha.value!);
    expect(reader.meanAlpha.low!).toBeGreaterThan(0);
    expect(reader.meanAlpha.low!).toBeGreaterThan(keyword.meanAlpha.value!);
    expect(market.alpha.value).toBe(0);
    expect(market.alpha.low!).toBeLessThanOrEqual(0);
    expect(market.alpha.high!).toBeGreaterThanOrEqual(0);
  });
});
