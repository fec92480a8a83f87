import { createHash, createHmac } from 'node:crypto';
import { SimulatedFeed } from '../../../src/market-data/simulated/simulated-feed';
import { candidateRange, type SimMarketSpec } from '../../../src/market-data/simulated/catalog';
import { commitmentOf, fixedSeal, scopeSecret, seasonSeal } from '../../../src/market-data/simulated/venue-seal';
import { seasonCommitments, suiteCommitments } from '../../../src/market-data/simulated/venue-commitments';
import { SUITE_V1 } from '../../../src/domain/replay/replay-suite';
import { TEST_MASTER } from '../../support/sealed-venue';

const fixedClock = (iso: string) => ({ now: () => new Date(iso) });
const NOW = '2026-12-06T12:00:00Z';

/** The markets of a venue that resolve in [fromIso, toIso), by k. */
function resolvingIn(feed: SimulatedFeed, fromIso: string, toIso: string): SimMarketSpec[] {
  const from = Date.parse(fromIso);
  const to = Date.parse(toIso);
  const out: SimMarketSpec[] = [];
  for (let k = candidateRange(feed.params, from).from; k <= candidateRange(feed.params, to).to; k++) {
    const spec = feed.spec(k);
    if (spec.resolveAtMs >= from && spec.resolveAtMs < to) out.push(spec);
  }
  return out;
}

/** Share of the real non-void outcomes a prediction gets right, over the markets both call YES or NO. */
function hitRate(real: SimulatedFeed, guess: SimulatedFeed, specs: readonly SimMarketSpec[]): { hits: number; n: number } {
  let hits = 0;
  let n = 0;
  for (const spec of specs) {
    const w = real.winnerOf(spec);
    const g = guess.winnerOf(spec);
    if (w === 'VOID' || g === 'VOID') continue;
    n += 1;
    if (w === g) hits += 1;
  }
  return { hits, n };
}

describe.each([false, true])('the sealed simulated venue (information %s)', (information) => {
  const seed = 42;
  const real = new SimulatedFeed({ seed, speed: 1, information, seal: seasonSeal(TEST_MASTER) }, fixedClock(NOW));
  // Four months of resolutions: some 1,300 markets.
  const specs = resolvingIn(real, '2026-07-01T00:00:00Z', '2026-11-01T00:00:00Z');

  test('when an attacker runs the public code with the published seed but not the secret, then it predicts outcomes no better than chance', () => {
    expect(specs.length).toBeGreaterThan(1000);
    // The attacker's best reading of the code: the venue with every secret it could guess (none is the server's).
    for (const guessed of [Buffer.alloc(32), Buffer.alloc(32, 0xff), createHash('sha256').update(String(seed)).digest()]) {
      const attacker = new SimulatedFeed({ seed, speed: 1, information, seal: seasonSeal(guessed) }, fixedClock(NOW));
      const { hits, n } = hitRate(real, attacker, specs);
      // Chance is ½ (starting prices are sealed too, so nothing public leans); 4 standard errors either side.
      const band = 4 * Math.sqrt(0.25 / n);
      expect(n).toBeGreaterThan(1000);
      expect(Math.abs(hits / n - 0.5)).toBeLessThan(band);
    }
    // Control: with the secret, the same prediction is exact (so the test above measures the secret, not a broken predictor).
    const insider = new SimulatedFeed({ seed, speed: 1, information, seal: seasonSeal(Buffer.from(TEST_MASTER)) }, fixedClock(NOW));
    const exact = hitRate(real, insider, specs);
    expect(exact.hits).toBe(exact.n);
  });

  test('when the public catalog is read (question, times, tokens, volume, spread), then it is the same under any secret; the starting price is not', () => {
    const other = new SimulatedFeed({ seed, speed: 1, information, seal: seasonSeal(Buffer.alloc(32, 7)) }, fixedClock(NOW));
    let startsDiffer = 0;
    for (const spec of specs.slice(0, 300)) {
      expect(other.spec(spec.k)).toEqual(spec);
      if (other.drawsOf(spec).x0 !== real.drawsOf(spec).x0) startsDiffer += 1;
    }
    expect(startsDiffer).toBe(300);
  });

  test('when one season’s secret is revealed, then the next season’s outcomes stay at chance for anyone holding it', () => {
    const revealed = scopeSecret(TEST_MASTER, 'season|2026-10');
    const holder = new SimulatedFeed({ seed, speed: 1, information, seal: fixedSeal(revealed) }, fixedClock(NOW));
    const october = specs.filter((s) => new Date(s.resolveAtMs).toISOString().startsWith('2026-10'));
    const november = resolvingIn(real, '2026-11-01T00:00:00Z', '2026-12-01T00:00:00Z');
    const inSeason = hitRate(real, holder, october);
    expect(inSeason.hits).toBe(inSeason.n);
    const next = hitRate(real, holder, november);
    expect(next.n).toBeGreaterThan(200);
    expect(Math.abs(next.hits / next.n - 0.5)).toBeLessThan(4 * Math.sqrt(0.25 / next.n));
  });
});

describe('commitments', () => {
  // The scheme computed here independently of venue-seal.ts, from its documented definition.
  const independentScope = (scope: string) => createHmac('sha256', TEST_MASTER).update(`sealed-venue|${scope}`).digest();
  const independentCommitment = (scope: string) => createHash('sha256').update(independentScope(scope)).digest('hex');

  test('when a season’s commitment is read, then it is SHA-256 of its secret, which stays null until the season ends', () => {
    const now = Date.parse(NOW);
    const seasons = seasonCommitments(TEST_MASTER, now, 1);
    expect(seasons[0]!.season).toBe('2024-01');
    // The last season a market open now can resolve in: 180 days of life and a few hours of resolution ahead.
    expect(seasons[seasons.length - 1]!.season).toBe('2027-06');
    for (const s of seasons) expect(s.commitment).toBe(independentCommitment(`season|${s.season}`));
    const nov = seasons.find((s) => s.season === '2026-11')!;
    const dec = seasons.find((s) => s.season === '2026-12')!;
    expect(nov).toEqual({
      scope: 'season|2026-11',
      season: '2026-11',
      revealAt: '2026-12-01T00:00:00.000Z',
      state: 'revealed',
      commitment: nov.commitment,
      secret: independentScope('season|2026-11').toString('hex'),
    });
    expect(dec).toEqual({
      scope: 'season|2026-12',
      season: '2026-12',
      revealAt: '2027-01-01T00:00:00.000Z',
      state: 'sealed',
      commitment: dec.commitment,
      secret: null,
    });
    expect(seasons.filter((s) => s.state === 'sealed').map((s) => s.season)[0]).toBe('2026-12');
    expect(commitmentOf(Buffer.from(nov.secret!, 'hex'))).toBe(nov.commitment);
  });

  test('when a suite is current its secret is sealed; once retired it is revealed', () => {
    const now = Date.parse(NOW);
    // suite-v1 retired when suite-v2 was published (2026-12-06): its secret is out, suite-v2's sealed until its own
    // retirement (2026-12-07, when suite-v3 was published), suite-v3's with no date.
    expect(suiteCommitments(TEST_MASTER, now)).toEqual([
      {
        scope: 'suite|suite-v1',
        suite: 'suite-v1',
        revealAt: '2026-12-06T00:00:00.000Z',
        state: 'revealed',
        secret: independentScope('suite|suite-v1').toString('hex'),
        commitment: independentCommitment('suite|suite-v1'),
      },
      {
        scope: 'suite|suite-v2',
        suite: 'suite-v2',
        revealAt: '2026-12-07T00:00:00.000Z',
        state: 'sealed',
        secret: null,
        commitment: independentCommitment('suite|suite-v2'),
      },
      { scope: 'suite|suite-v3', suite: 'suite-v3', revealAt: null, state: 'sealed', secret: null, commitment: independentCommitment('suite|suite-v3') },
    ]);
    expect(suiteCommitments(TEST_MASTER, Date.parse('2026-12-07T00:00:00Z'))[1]).toMatchObject({
      state: 'revealed',
      secret: independentScope('suite|suite-v2').toString('hex'),
    });
    expect(suiteCommitments(TEST_MASTER, Date.parse('2026-12-05T23:59:59Z'))[0]).toMatchObject({ state: 'sealed', secret: null });
    const retired = { ...SUITE_V1, retiredAt: '2026-12-01T00:00:00.000Z' };
    expect(suiteCommitments(TEST_MASTER, now, [retired])[0]).toMatchObject({ state: 'revealed', secret: independentScope('suite|suite-v1').toString('hex') });
    expect(suiteCommitments(TEST_MASTER, Date.parse('2026-11-30T00:00:00Z'), [retired])[0]).toMatchObject({ state: 'sealed', secret: null });
  });
});
