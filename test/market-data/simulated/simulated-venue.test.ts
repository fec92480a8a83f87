import fc from 'fast-check';
import { FeedError } from '../../../src/market-data/feed';
import { MAX_LIFE_MS, marketSpec, SIM_EPOCH_MS } from '../../../src/market-data/simulated/catalog';
import { CATEGORIES } from '../../../src/market-data/simulated/questions';
import { SimulatedFeed } from '../../../src/market-data/simulated/simulated-feed';
import { testSeal } from '../../support/sealed-venue';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const fixedClock = (t: number) => ({ now: () => new Date(t) });
const venue = (seed: number, t = NOW, speed = 1) => new SimulatedFeed({ seed, speed, seal: testSeal() }, fixedClock(t));

const seeds = fc.integer({ min: 0, max: 2 ** 31 - 1 });
/** A moment somewhere in the venue's timeline. */
const times = fc.integer({ min: SIM_EPOCH_MS + 200 * DAY, max: SIM_EPOCH_MS + 1200 * DAY });

describe('the simulated venue', () => {
  test('when two venues share a seed, then they list the same markets with the same prices; another seed lists others', async () => {
    await fc.assert(
      fc.asyncProperty(seeds, times, async (seed, t) => {
        const a = await venue(seed, t).listMarkets();
        const b = await venue(seed, t).listMarkets();
        expect(b).toEqual(a);
        const other = await venue(seed + 1, t).listMarkets();
        const questions = new Set(a.markets.map((m) => m.question));
        expect(other.markets.filter((m) => !questions.has(m.question)).length).toBeGreaterThan(other.markets.length / 2);
      }),
      { numRuns: 5 },
    );
  });

  test('when a market is described, then its trading figures follow its own volume and price: 24 h volume is the volume added since a day ago, open interest 15–45 % of volume, last trade the YES mid on the 0.001 tick', async () => {
    await fc.assert(
      fc.asyncProperty(seeds, times, fc.nat(400), async (seed, t, pick) => {
        const { markets } = await venue(seed, t).listMarkets();
        const m = markets[pick % markets.length]!;
        // Independently: the same market a day earlier (volume 0 before it existed), through the feed's public reads.
        const dayAgo = await venue(seed, t - DAY).market(m.id);
        const expected24h = Math.round((m.volume! - (dayAgo?.volume ?? 0)) * 100) / 100;
        expect(m.stats!.volume24h).toBeCloseTo(expected24h, 2);
        expect(m.stats!.volume24h).toBeGreaterThanOrEqual(0);
        expect(m.stats!.tickSizeMicro).toBe(1_000n);
        expect(m.stats!.minOrderShares).toBe(1);
        if (m.status === 'resolved') {
          expect(m.stats!.openInterest).toBe(0);
          expect(m.stats!.lastTradePriceMicro).toBeNull();
        } else {
          expect(m.stats!.openInterest!).toBeGreaterThanOrEqual(Math.floor(0.15 * m.volume! * 100) / 100);
          expect(m.stats!.openInterest!).toBeLessThanOrEqual(Math.ceil(0.45 * m.volume! * 100) / 100);
          const mid = m.tokens[0].priceMicro;
          expect(m.stats!.lastTradePriceMicro! % 1_000n).toBe(0n);
          const gap = m.stats!.lastTradePriceMicro! - mid;
          expect(gap >= -500n && gap <= 500n).toBe(true);
        }
        // The same seed and time give the same figures.
        expect((await venue(seed, t).market(m.id))!.stats).toEqual(m.stats);
      }),
      { numRuns: 10 },
    );
  });

  test('when any token is quoted at any time, then YES + NO = 1 exactly, prices sit inside (0, 1) and bid <= mid <= ask', async () => {
    await fc.assert(
      fc.asyncProperty(seeds, times, fc.nat(400), async (seed, t, pick) => {
        const v = venue(seed, t);
        const { markets } = await v.listMarkets();
        const active = markets.filter((m) => m.status === 'active');
        const m = active[pick % active.length]!;
        const [yes, no] = await Promise.all([v.quote(m.tokens[0].tokenId), v.quote(m.tokens[1].tokenId)]);
        expect(yes.midMicro + no.midMicro).toBe(1_000_000n);
        expect(yes.bidMicro + no.askMicro).toBe(1_000_000n);
        expect(yes.askMicro + no.bidMicro).toBe(1_000_000n);
        for (const q of [yes, no]) {
          expect(q.bidMicro).toBeGreaterThan(0n);
          expect(q.askMicro).toBeLessThan(1_000_000n);
          expect(q.bidMicro).toBeLessThanOrEqual(q.midMicro);
          expect(q.midMicro).toBeLessThanOrEqual(q.askMicro);
          expect(q.bidMicro).toBeLessThan(q.askMicro);
        }
        expect(m.tokens[0].priceMicro + m.tokens[1].priceMicro).toBe(1_000_000n);
      }),
      { numRuns: 40 },
    );
  });

  test('when a price path is followed through a whole life, then every price stays within [0.01, 0.99]', () => {
    fc.assert(
      fc.property(seeds, fc.nat(5000), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 20, maxLength: 20 }), (seed, k, fractions) => {
        const v = venue(seed);
        const spec = v.spec(k);
        for (const f of fractions) {
          const state = v.stateAt(spec, spec.createdAtMs + f * (spec.endAtMs - spec.createdAtMs))!;
          expect(state.pYes).toBeGreaterThanOrEqual(0.0099);
          expect(state.pYes).toBeLessThanOrEqual(0.9901);
        }
      }),
      { numRuns: 60 },
    );
  });

  test('when listed at any moment, then at least 200 open markets span every category with venue-style ids and unique slugs', async () => {
    await fc.assert(
      fc.asyncProperty(seeds, times, async (seed, t) => {
        const { markets } = await venue(seed, t).listMarkets();
        const active = markets.filter((m) => m.status === 'active');
        expect(active.length).toBeGreaterThanOrEqual(200);
        expect(new Set(active.map((m) => m.category)).size).toBe(CATEGORIES.length);
        expect(new Set(markets.map((m) => m.slug)).size).toBe(markets.length);
        for (const m of active) {
          for (const tok of m.tokens) expect(tok.tokenId).toMatch(/^[1-9]\d{76}$/);
          expect(m.question).toMatch(/^Will .+\?$/);
          expect(m.endDate!.getTime()).toBeGreaterThan(t);
        }
        const horizons = active.map((m) => m.endDate!.getTime() - t);
        expect(Math.min(...horizons)).toBeLessThan(2 * DAY); // some end within hours
        expect(Math.max(...horizons)).toBeGreaterThan(60 * DAY); // some run for months
      }),
      { numRuns: 4 },
    );
  });

  test('when time passes, then new markets appear and markets that left the list are resolved', async () => {
    const before = await venue(42, NOW).listMarkets();
    const later = venue(42, NOW + 3 * DAY);
    const after = await later.listMarkets();
    const beforeIds = new Set(before.markets.map((m) => m.id));
    const afterIds = new Set(after.markets.map((m) => m.id));
    const born = [...afterIds].filter((id) => !beforeIds.has(id));
    const gone = [...beforeIds].filter((id) => !afterIds.has(id));
    expect(born.length).toBeGreaterThan(10);
    expect(gone.length).toBeGreaterThan(10);
    for (const id of gone) {
      const m = (await later.market(id))!;
      expect(m.status).toBe('resolved');
      expect(['YES', 'NO', 'VOID']).toContain(m.winner);
      const paid = m.tokens.map((t) => t.priceMicro);
      expect(paid).toEqual(m.winner === 'VOID' ? [500_000n, 500_000n] : m.winner === 'YES' ? [1_000_000n, 0n] : [0n, 1_000_000n]);
    }
  });

  test('when SIM_SPEED is 60, then markets live 60 times shorter and the catalog stays as full', async () => {
    const fast = await venue(42, NOW, 60).listMarkets();
    expect(fast.markets.filter((m) => m.status === 'active').length).toBeGreaterThanOrEqual(200);
    for (let k = 0; k < 200; k++) {
      const s = marketSpec({ seed: 42, speed: 60 }, k);
      expect(s.endAtMs - s.createdAtMs).toBeLessThanOrEqual(MAX_LIFE_MS / 60 + 3_600_000 / 60);
    }
  });

  test('when a market has ended, then it quotes no price; an unknown token is unknown', async () => {
    const v = venue(7, NOW);
    const spec = [...Array(3000).keys()].map((k) => v.spec(k)).find((s) => s.endAtMs < NOW)!;
    await expect(v.quote(spec.yesTokenId)).rejects.toMatchObject({ kind: 'not-trading' });
    const err = await v.quote('1'.repeat(77)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FeedError);
    expect((err as FeedError).kind).toBe('unknown-token');
  });

  test('when history is asked, then points are chronological, evenly spaced, within the market life and end now', async () => {
    const v = venue(42, NOW);
    const { markets } = await v.listMarkets();
    const m = markets.find((x) => x.status === 'active' && x.createdAt!.getTime() < NOW - 8 * DAY)!;
    const nowS = NOW / 1000;
    const pts = await v.history(m.tokens[0].tokenId, { interval: '1w', fromS: nowS - 7 * 86_400, toS: nowS, stepS: 3600 });
    expect(pts.length).toBe(169);
    for (let i = 1; i < pts.length; i++) expect(pts[i]!.t - pts[i - 1]!.t).toBe(3600);
    expect(pts[pts.length - 1]!.t).toBe(nowS);
    expect(pts[pts.length - 1]!.p).toBe(Number((await v.quote(m.tokens[0].tokenId)).midMicro) / 1e6);
    const young = markets.find((x) => x.status === 'active' && x.createdAt!.getTime() > NOW - DAY)!;
    const since = await v.history(young.tokens[1].tokenId, { interval: '1w', fromS: nowS - 7 * 86_400, toS: nowS, stepS: 3600 });
    expect(since[0]!.t).toBeGreaterThanOrEqual(young.createdAt!.getTime() / 1000);
  });

  /**
   * Calibration: the winner is drawn with the final YES probability, and the price is a martingale, so
   * among markets priced near p (at the end, and already half-way through their life) about p resolve YES.
   */
  test('when thousands of markets resolve, then the YES frequency in each price bucket matches the price', () => {
    for (const seed of [3, 2024]) {
      const v = venue(seed);
      const final = Array.from({ length: 10 }, () => ({ n: 0, yes: 0, p: 0 }));
      const midway = Array.from({ length: 10 }, () => ({ n: 0, yes: 0, p: 0 }));
      for (let k = 0; k < 3000; k++) {
        const spec = v.spec(k);
        const end = v.stateAt(spec, spec.resolveAtMs)!;
        if (end.winner === 'VOID') continue;
        const half = v.stateAt(spec, (spec.createdAtMs + spec.endAtMs) / 2)!;
        for (const [buckets, p] of [
          [final, end.pYes],
          [midway, half.pYes],
        ] as const) {
          const b = buckets[Math.min(9, Math.floor(p * 10))]!;
          b.n += 1;
          b.p += p;
          if (end.winner === 'YES') b.yes += 1;
        }
      }
      for (const buckets of [final, midway]) {
        for (const b of buckets.filter((x) => x.n >= 50)) {
          const price = b.p / b.n;
          const sd = Math.sqrt((price * (1 - price)) / b.n);
          expect(Math.abs(b.yes / b.n - price)).toBeLessThanOrEqual(4 * sd + 0.02);
        }
        expect(buckets.filter((x) => x.n >= 50).length).toBeGreaterThanOrEqual(8);
      }
    }
  });
});
