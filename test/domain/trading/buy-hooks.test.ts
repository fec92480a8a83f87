import { backends, describeOnPostgres } from '../../support/backends';
import { startTestApp, registerAgent, type TestApp } from '../../support/app';
import { ControlledPrices, seedMarket } from '../../support/markets';
import { turnCountingProxy } from '../../support/turn-counting-proxy';
import { openDatabase, type Database } from '../../../src/db/database';
import { testConfig } from '../../../src/config';
import { createLogger } from '../../../src/logger';
import { TradingService } from '../../../src/domain/trading/trading-service';
import { TradeHooks, type TradeListener } from '../../../src/domain/trading/trade-hooks';
import { AppError } from '../../../src/errors/app-error';
import { venueBooks } from '../../../src/market-data/venue-books';

/** A buy's hooks are its consumers: they run in its transaction once it is written, see it, and roll back with it. */
describe.each(backends())('a buy and its hooks on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(async () => t.close());

  const tradingWith = (listener: TradeListener) => {
    const hooks = new TradeHooks();
    hooks.on(listener);
    return new TradingService(t.services.db, prices, hooks);
  };

  test('when a buy succeeds, then its listener runs in its transaction after it and sees the trade', async () => {
    const agent = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
    let seen: number | undefined;
    const trading = tradingWith(async (tx, e) => {
      const rows = await tx.query<{ c: bigint }>('SELECT count(*) AS c FROM trades WHERE user_id = $1', [e.userId]);
      seen = Number(rows[0]!.c);
    });
    await trading.buy(agent.id, { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 10 }, new Date());
    expect(seen).toBe(1);
  });

  test('when the service buys, then the engine’s statements, the track record’s and the events’ are prepared statements of the connection', async () => {
    const agent = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
    let prepared: string[] = [];
    // Registered last: its statement goes out behind every listener's first one, in the same transaction (so on the same connection).
    t.services.tradeHooks.on(async (tx) => {
      prepared = (await tx.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).map((r) => r.name);
    });
    await t.services.trading.buy(agent.id, { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 10 }, new Date());
    expect(prepared).toEqual(
      expect.arrayContaining(['trade_gate_mirrored', 'ledger_buyer_of', 'ledger_buy', 'trade_record', 'track_buy', 'append_trade_events']),
    );
  });

  test('when a listener fails, then the buy fails with its error and nothing commits', async () => {
    const agent = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
    const trading = tradingWith(async (tx) => void (await tx.query('SELECT 1 / 0')));
    await expect(trading.buy(agent.id, { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 10 }, new Date())).rejects.toThrow(
      /division by zero/,
    );
    expect(await t.services.db.query('SELECT 1 FROM trades WHERE user_id = $1', [agent.id])).toEqual([]);
  });

  test('when a buy is refused, then its listener is not called, nothing is written and the refusal is the error', async () => {
    const agent = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
    let called = 0;
    const trading = tradingWith(async (tx, e) => {
      called += 1;
      await tx.query(`UPDATE users SET display_name = 'written by the hook' WHERE id = $1`, [e.userId]);
    });
    const refused = await trading
      .buy(agent.id, { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 5000 }, new Date())
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('INSUFFICIENT_BALANCE');
    expect(called).toBe(0);
    const [row] = await t.services.db.query<{ display_name: string }>('SELECT display_name FROM users WHERE id = $1', [agent.id]);
    expect(row!.display_name).not.toBe('written by the hook');
    expect(await t.services.db.query('SELECT 1 FROM trades WHERE user_id = $1', [agent.id])).toEqual([]);
  });
});

describeOnPostgres('a buy’s round trips on $name', (backend) => {
  let t: TestApp;
  let proxy: Awaited<ReturnType<typeof turnCountingProxy>>;
  let viaProxy: Database;
  const prices = new ControlledPrices();
  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
    const url = (t.services.db.dataSource.options as { url: string }).url;
    proxy = await turnCountingProxy(new URL(url), 5);
    viaProxy = await openDatabase(testConfig({ DATABASE_URL: proxy.url, DB_POOL_SIZE: 1 }), createLogger('silent'));
  });
  afterAll(async () => {
    await viaProxy.close();
    await proxy.close();
    await t.close();
  });

  /** Turns of the second of two identical buys (the first remembers the token and opens the connection). */
  async function turnsOfABuy(listeners: number): Promise<number> {
    const agent = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
    const hooks = new TradeHooks();
    hooks.on(async (tx, e) => void (await tx.query('UPDATE users SET last_active_at = $2 WHERE id = $1', [e.userId, e.at])));
    if (listeners > 1) hooks.on(async (tx, e) => void (await tx.query('SELECT count(*) FROM trades WHERE user_id = $1', [e.userId])));
    const trading = new TradingService(viaProxy, prices, hooks);
    const order = { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES' as const, amount: 1 };
    await trading.buy(agent.id, order, new Date());
    const before = proxy.turns();
    await trading.buy(agent.id, order, new Date());
    return proxy.turns() - before;
  }

  test('when a buy has a listener, then the engine’s steps go out in their two groups: three turns with COMMIT', async () => {
    // BEGIN + gate + debit + journal entry + position; transfers + trade record + the listener's statement; COMMIT.
    // Awaiting every statement apart would be eight.
    expect(await turnsOfABuy(1)).toBe(3);
  });

  test('when a buy has two listeners (the event log and the track record), then both go out together: no turn more than one', async () => {
    expect(await turnsOfABuy(2)).toBe(await turnsOfABuy(1));
  });

  test('when the simulated venue sizes its book by a market’s traded dollars not yet remembered, then the buy reads them in its first turn: one turn before BEGIN (the token), not two', async () => {
    const agent = await registerAgent(t);
    const [warm, fresh] = [await seedMarket(t.services.db), await seedMarket(t.services.db)];
    prices.set(warm.yes, 0.5, 0.5);
    prices.set(fresh.yes, 0.5, 0.5);
    const trading = new TradingService(viaProxy, prices, new TradeHooks(), undefined, venueBooks({ simFeeBps: 0 }));
    const buy = (m: typeof warm) => trading.buy(agent.id, { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 1 }, new Date());
    await buy(warm); // opens the connection
    const before = proxy.turns();
    await buy(fresh);
    // The token's facts; BEGIN + the book's claim and the traded dollars + the engine's reads; the writes; COMMIT.
    expect(proxy.turns() - before).toBe(4);
  });
});
