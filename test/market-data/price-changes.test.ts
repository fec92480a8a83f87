import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import type { PriceChange } from '../../src/domain/trading/price-service';

class TestClock {
  constructor(public t: number) {}
  now(): Date {
    return new Date(this.t);
  }
}

describe.each(backends())('price changes seen by the sync on $name', (backend) => {
  let t: TestApp;
  const clock = new TestClock(Date.UTC(2026, 10, 22, 12, 0, 0));
  const seen: PriceChange[][] = [];
  beforeAll(async () => {
    t = await startTestApp(backend, { clock, background: false });
    t.services.priceChanges.on(async (changes) => {
      seen.push(changes);
    });
  });
  afterAll(async () => t.close());

  test('when a sync writes prices, then the tokens whose book moved are announced once committed, and an unchanged sync announces none', async () => {
    await t.services.marketSync.runOnce({ force: true });
    const first = seen.flat();
    const [active] = await t.services.db.query<{ n: bigint }>(
      `SELECT count(*) AS n FROM market_tokens t JOIN markets m ON m.id = t.market_id WHERE m.status = 'active'`,
    );
    expect(BigInt(first.length)).toBe(active!.n);
    // Announced after commit: the mirror already holds what was announced.
    const probe = first[0]!;
    const [row] = await t.services.db.query<{ bid: bigint }>('SELECT coalesce(bid_micro, price_micro) AS bid FROM market_tokens WHERE token_id = $1', [
      probe.tokenId,
    ]);
    expect(row!.bid).toBe(probe.bidMicro);

    seen.length = 0;
    await t.services.marketSync.runOnce({ force: true });
    expect(seen.flat()).toHaveLength(0);

    clock.t += 30 * 60_000;
    await t.services.marketSync.runOnce({ force: true });
    const moved = seen.flat();
    expect(moved.length).toBeGreaterThan(0);
    expect(moved.length).toBeLessThan(first.length + 10);
    expect(moved.every((c) => c.source === 'simulated' && c.askMicro >= c.bidMicro)).toBe(true);
  });
});
