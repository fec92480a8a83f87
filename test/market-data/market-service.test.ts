import { ConcurrencyGate } from '../../src/db/concurrency-gate';
import type { Database } from '../../src/db/database';
import { MarketService } from '../../src/market-data/market-service';
import { createLogger } from '../../src/logger';

/** A database whose queries finish only when the test says so, counting how many are open at once. */
function heldDatabase() {
  const held: Array<{ sql: string; release: (rows: unknown[]) => void }> = [];
  let open = 0;
  let maxOpen = 0;
  const db = {
    query: (sql: string) =>
      new Promise<unknown[]>((resolve) => {
        open += 1;
        maxOpen = Math.max(maxOpen, open);
        held.push({
          sql,
          release: (rows) => {
            open -= 1;
            resolve(rows);
          },
        });
      }),
  } as unknown as Database;
  return { db, held, stats: () => ({ open, maxOpen }) };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('MarketService.search', () => {
  test('when more searches arrive than SEARCH_CONCURRENCY, then only that many are in the database at once, fallbacks included', async () => {
    const { db, held, stats } = heldDatabase();
    const service = new MarketService({
      db,
      feed: {} as never,
      store: {} as never,
      prices: {} as never,
      clock: { now: () => new Date() },
      log: createLogger('silent'),
      syncIntervalS: 60,
      searchGate: new ConcurrencyGate(2),
    });
    const searches = ['bitcoin price', 'fed rates', 'lakers', 'eurovision'].map((q) => service.search(q));
    await tick();
    expect(held).toHaveLength(2);
    // The first search finds nothing with whole words: its looser second try keeps its place in the gate.
    held[0]!.release([]);
    await tick();
    expect(held).toHaveLength(3);
    expect(held[2]!.sql).toBe(held[0]!.sql);
    expect(stats().open).toBe(2);
    for (let i = 1; held.some((h, j) => j >= i); i += 1) {
      held[i]!.release([]);
      await tick();
      await tick();
    }
    await Promise.all(searches);
    expect(stats().maxOpen).toBe(2);
  });
});
