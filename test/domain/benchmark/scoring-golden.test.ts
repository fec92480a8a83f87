import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scoreRecord, SCORING_VERSION, type BenchmarkRecord } from '../../../src/domain/benchmark/benchmark-record';
import type { BenchmarkInputs } from '../../../src/domain/benchmark/benchmark-inputs';

/**
 * Scoring v1's golden files (docs/scoring.md): a fixed input set (a question forecast by one account only, replaced
 * forecasts with peers and references, a void, a forecast after the close across a season's edge, a categorical market,
 * buys and equity days) and the record v1 scores from it, held byte for byte. Any change of a formula, a rule or a seed
 * changes the record and fails here: a change of rules is a new version with its own files, the old ones kept.
 * `GOLDEN_WRITE=1` writes the expected file afresh (for a new version only).
 */
const dir = join(__dirname, '../../fixtures/scoring');

describe(`scoring ${SCORING_VERSION} golden files`, () => {
  test('the fixed inputs score to the expected record, byte for byte', () => {
    const { season, seedLabel, inputs } = JSON.parse(readFileSync(join(dir, 'v1-inputs.json'), 'utf8')) as {
      season: string;
      seedLabel: string;
      inputs: BenchmarkInputs;
    };
    const text = `${JSON.stringify(scoreRecord(season, inputs, seedLabel), null, 2)}\n`;
    const file = join(dir, `${SCORING_VERSION}-record.json`);
    if (process.env.GOLDEN_WRITE === '1') writeFileSync(file, text);
    expect(text).toBe(readFileSync(file, 'utf8'));
  });

  test('the expected record states its version and the hand-computed figures of the fixture', () => {
    const r = JSON.parse(readFileSync(join(dir, `${SCORING_VERSION}-record.json`), 'utf8')) as BenchmarkRecord;
    expect(r.scoringVersion).toBe('v1');
    // Scored: m-alone, m-replaced, m-season (its 0.1 after the close dropped), m-categorical; m-void is not.
    expect(r.forecasts.questions).toBe(4);
    expect(r.forecasts.voided).toBe(1);
    // Final Briers 0.09, 0.04, 0.04 (0.8 on YES), and ½(0.04 + 0.09 + 0.25) = 0.19.
    expect(r.forecasts.brier.value).toBeCloseTo((0.09 + 0.04 + 0.04 + 0.19) / 4, 12);
    // m-alone: nobody else, one forecast standing 10⁸ ms: baseline 100 log₂ 1.4, peer 0.
    // m-season: 0.8 held from 1896.0 to the close at 1898.9 (× 10⁹ ms), alone until peer-2's 0.6 at 1897.0: baseline
    // 100 log₂ 1.6, peer 100 ln(0.8/0.6) over 1.9 of its 2.9.
    // m-categorical: 100 ln(0.5·3)/ln 3, peer 0.
    // m-replaced (NO): own 0.4 for 500, 0.65 for 300, 0.8 for 200 (× 10⁶ ms); others in force:
    //   [1898.0, 1898.2]: peer-1 0.5 → 100 ln(0.4/0.5)·200
    //   [1898.2, 1898.3]: peer-1 0.5, market 0.55 → 100 (ln 0.4 − (ln 0.5 + ln 0.55)/2)·100
    //   [1898.3, 1898.5]: + favourite 0.6 → 100 (ln 0.4 − (ln 0.5 + ln 0.55 + ln 0.6)/3)·200
    //   [1898.5, 1898.6]: own 0.65 → 100 (ln 0.65 − (ln 0.5 + ln 0.55 + ln 0.6)/3)·100
    //   [1898.6, 1898.8]: peer-1 0.9 → 100 (ln 0.65 − (ln 0.9 + ln 0.55 + ln 0.6)/3)·200
    //   [1898.8, 1899.0]: own 0.8 → 100 (ln 0.8 − (ln 0.9 + ln 0.55 + ln 0.6)/3)·200   (in units of 10⁶ ms)
    const L = Math.log;
    const replacedPeer =
      (100 *
        (L(0.4 / 0.5) * 200 +
          (L(0.4) - (L(0.5) + L(0.55)) / 2) * 100 +
          (L(0.4) - (L(0.5) + L(0.55) + L(0.6)) / 3) * 200 +
          (L(0.65) - (L(0.5) + L(0.55) + L(0.6)) / 3) * 100 +
          (L(0.65) - (L(0.9) + L(0.55) + L(0.6)) / 3) * 200 +
          (L(0.8) - (L(0.9) + L(0.55) + L(0.6)) / 3) * 200)) /
      1000;
    expect(r.life.peer.value).toBeCloseTo((0 + replacedPeer + (100 * L(0.8 / 0.6) * 1.9) / 2.9 + 0) / 4, 9);
    const replacedBaseline = (100 * (Math.log2(0.8) * 500 + Math.log2(1.3) * 300 + Math.log2(1.6) * 200)) / 1000;
    expect(r.life.baseline.value).toBeCloseTo((100 * Math.log2(1.4) + replacedBaseline + 100 * Math.log2(1.6) + (100 * L(1.5)) / L(3)) / 4, 9);
    // Coverage: m-replaced's life starts with peer-1 at 1897.0 (own from 1898.0: 1/2); m-season with its own 0.8 at 1896.0 (1).
    expect(r.life.coverage.value).toBeCloseTo((1 + 0.5 + 1 + 1) / 4, 12);
  });
});
