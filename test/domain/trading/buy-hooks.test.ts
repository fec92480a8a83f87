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
import { BUY_STATEMENT, buyParams } from '../../../src/domain/trading/trade-sql';

/** A buy's hooks are sent behind its statement, before its answer: they must still see it, and roll back with it. */
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

  test('when the service buys, then the buy (carrying its track record) and its events are prepared statements of the connection, sent together', async () => {
    const agent = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
    let prepared: string[] = [];
    // Registered last: its statement goes out behind every listener's first one, in the same transaction (so on the same connection).
    t.services.tradeHooks.on(async (tx) => {
      prepared = (await tx.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).map((r) => r.name);
    });
    await t.services.trading.buy(agent.id, { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 10 }, new Date());
    expect(prepared).toEqual(expect.arrayContaining([`buy_mirrored_${t.services.tradeHooks.buyRowParts.length}`, 'append_trade_events']));
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

  test('when a buy is refused, then what its listener wrote rolls back with it and the refusal is the error', async () => {
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
    expect(called).toBe(1);
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

  test('when a buy has a listener, then BEGIN, the buy and the listener’s statement travel in one turn and COMMIT in a second', async () => {
    const agent = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
    const hooks = new TradeHooks();
    hooks.on(async (tx, e) => void (await tx.query('UPDATE users SET last_active_at = $2 WHERE id = $1', [e.userId, e.at])));
    const trading = new TradingService(viaProxy, prices, hooks);
    const order = { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES' as const, amount: 1 };
    await trading.buy(agent.id, order, new Date()); // the token is now remembered, the connection open
    const before = proxy.turns();
    await trading.buy(agent.id, order, new Date());
    // Awaiting each statement: BEGIN, the buy, the listener's UPDATE and COMMIT are four turns.
    expect(proxy.turns() - before).toBe(2);
  });

  test('when a buy has two listeners (the event log and the track record), then both statements travel with the buy in one turn', async () => {
    const agent = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
    const hooks = new TradeHooks();
    hooks.on(async (tx, e) => void (await tx.query('UPDATE users SET last_active_at = $2 WHERE id = $1', [e.userId, e.at])));
    hooks.on(async (tx, e) => void (await tx.query('SELECT count(*) FROM trades WHERE user_id = $1', [e.userId])));
    const trading = new TradingService(viaProxy, prices, hooks);
    const order = { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES' as const, amount: 1 };
    await trading.buy(agent.id, order, new Date());
    const before = proxy.turns();
    await trading.buy(agent.id, order, new Date());
    // One listener after the other would be a third turn.
    expect(proxy.turns() - before).toBe(2);
  });

  test('when a buy is refused, then its statement still holds the account row, so the hooks behind it keep the lock order of every trade', async () => {
    const agent = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    const lockedElsewhere = await t.services.db
      .transaction(async (tx) => {
        const [row] = await tx.query<{ position_id: string | null }>(
          BUY_STATEMENT,
          buyParams({
            userId: agent.id,
            marketId: m.id,
            tokenId: m.yes,
            amountMicro: 5_000_000_000n,
            quantityMicro: 10_000_000_000n,
            priceMicro: 500_000n,
            outcome: 'YES',
            at: new Date(),
          }),
        );
        expect(row!.position_id).toBeNull();
        // Another connection cannot take the account row while this transaction is open.
        return t.services.db.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE NOWAIT', [agent.id]).then(
          () => 'free',
          (e: { code?: string }) => e.code,
        );
      })
      .catch((e: unknown) => e);
    expect(lockedElsewhere).toBe('55P03');
  });
});
