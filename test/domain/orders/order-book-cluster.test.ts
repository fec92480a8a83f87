import { describeOnPostgres, type Backend } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { ControlledPrices, seedMarket, type SeededMarket } from '../../support/markets';
import { auditLedger } from '../../../src/domain/audit/ledger-audit';
import { openDatabase } from '../../../src/db/database';
import { testConfig } from '../../../src/config';
import { createLogger } from '../../../src/logger';
import { toMicro } from '../../../src/domain/money/micro';

// Two service instances (each its own pool, its own OrderService) on one PostgreSQL database, both seeing the same
// CLOB book at once: together they fill no more than the book shows.
describeOnPostgres('book consumption across processes on $name', (backend) => {
  let one: TestApp;
  let two: TestApp;
  const pricesOne = new ControlledPrices();
  const pricesTwo = new ControlledPrices();
  let m: SeededMarket;

  beforeAll(async () => {
    let url: string | undefined;
    const remembering: Backend = {
      name: backend.name,
      async open() {
        const opened = await backend.open();
        url = opened.url;
        return opened;
      },
    };
    one = await startTestApp(remembering, { prices: pricesOne, background: false });
    const second: Backend = {
      name: 'postgres',
      async open() {
        const db = await openDatabase(testConfig({ DATABASE_URL: url!, DB_POOL_SIZE: 10 }), createLogger('silent'));
        return { db, drop: () => db.close() };
      },
    };
    two = await startTestApp(second, { prices: pricesTwo, background: false });
  });
  afterAll(async () => {
    expect((await auditLedger(one.services.db)).violations).toEqual([]);
    await two.close();
    await one.close();
  });
  beforeEach(async () => {
    m = await seedMarket(one.services.db);
    await one.services.db.query(`UPDATE market_tokens SET bid_micro = 600000, ask_micro = 625000, price_micro = 612500, price_at = now() WHERE token_id = $1`, [
      m.yes,
    ]);
    pricesOne.set(m.yes, 0.6, 0.625);
    pricesTwo.set(m.yes, 0.6, 0.625);
  });

  /** Both processes publish the same book (as each would read it from the CLOB). Levels as [price, shares]. */
  const book = (bids: Array<[number, number]>, asks: Array<[number, number]>) => {
    pricesOne.book(m.yes, bids, asks);
    pricesTwo.book(m.yes, bids, asks);
  };
  /** The mirrored listing's price change reaching both processes at once (each then reads the book for depth). */
  const bothSee = async (bid: number, ask: number) => {
    const change = [{ tokenId: m.yes, bidMicro: toMicro(bid), askMicro: toMicro(ask), asOf: new Date(), source: 'polymarket' as const }];
    await Promise.all([one.services.priceChanges.emit(change), two.services.priceChanges.emit(change)]);
  };
  const filled = async () => {
    const rows = await one.services.db.query<{ shares: bigint; cash: bigint }>(
      'SELECT coalesce(sum(filled_shares_micro), 0) AS shares, coalesce(sum(filled_cash_micro), 0) AS cash FROM orders WHERE token_id = $1',
      [m.yes],
    );
    return { shares: Number(rows[0]!.shares) / 1e6, cash: Number(rows[0]!.cash) / 1e6 };
  };
  const taken = async (side: 'bid' | 'ask' = 'ask') =>
    // The book's claims live in book_claims since migration 77 (none yet: nothing taken).
    (await one.services.db.query<{ n: bigint }>(`SELECT coalesce((SELECT ${side}_taken_micro FROM book_claims WHERE token_id = $1), 0) AS n`, [m.yes]))[0]!.n;

  test('when many resting buys cross and both processes fill against one book at once, then together they take exactly what it showed', async () => {
    // Ten $2 buys at 0.50 (4 shares each), placed through either process; the book will show 20 shares at 0.50.
    for (let i = 0; i < 10; i += 1) {
      const a = await registerAgent(i % 2 ? two : one);
      await (i % 2 ? two : one).services.orders.place(a.id, { tokenId: m.yes, side: 'BUY', limitPrice: 0.5, size: 2, timeInForce: 'GTC' }, new Date());
    }
    book(
      [[0.45, 100]],
      [
        [0.5, 20],
        [0.6, 1000],
      ],
    );
    for (let round = 0; round < 4; round += 1) await bothSee(0.45, 0.5);
    expect(await filled()).toEqual({ shares: 20, cash: 10 });
    expect(await taken()).toBe(20_000_000n);
    // A new book: what it shows is there again, once.
    book(
      [[0.45, 100]],
      [
        [0.5, 6],
        [0.6, 1000],
      ],
    );
    for (let round = 0; round < 3; round += 1) await bothSee(0.45, 0.5);
    expect(await filled()).toEqual({ shares: 26, cash: 13 });
    const states = await one.services.db.query<{ state: string; n: number }>(
      'SELECT state, count(*)::int AS n FROM orders WHERE token_id = $1 GROUP BY state ORDER BY state',
      [m.yes],
    );
    expect(states).toEqual([
      { state: 'filled', n: 6 },
      { state: 'open', n: 3 },
      { state: 'partially_filled', n: 1 },
    ]);
  });

  test('when one resting buy crosses and both processes fill it against the same book at once, then it takes the book once', async () => {
    const a = await registerAgent(one);
    const o = await one.services.orders.place(a.id, { tokenId: m.yes, side: 'BUY', limitPrice: 0.5, size: 100, timeInForce: 'GTC' }, new Date());
    book([[0.45, 100]], [[0.5, 20]]);
    for (let round = 0; round < 4; round += 1) await bothSee(0.45, 0.5);
    expect(await one.services.orders.get(a.id, o.id)).toMatchObject({ state: 'partially_filled', filledShares: 20, filledCash: 10, reservedCash: 90 });
    expect(await two.services.accounts.cash(a.id)).toEqual({ balance: 990, reserved: 90, available: 900 });
  });

  test('when resting sells cross the bids in both processes at once, then together they sell no more than the bids show', async () => {
    const sellers = [];
    for (let i = 0; i < 4; i += 1) {
      const a = await registerAgent(one);
      // 10 shares each, bought at the ask 0.625 (no book yet: fills whole), then offered at 0.55.
      await one.services.orders.place(a.id, { tokenId: m.yes, side: 'BUY', limitPrice: 0.7, size: 6.25, timeInForce: 'IOC' }, new Date());
      sellers.push(a);
    }
    // The bid below the sells' limit, so they rest.
    pricesOne.set(m.yes, 0.5, 0.625);
    pricesTwo.set(m.yes, 0.5, 0.625);
    for (const [i, a] of sellers.entries())
      await (i % 2 ? two : one).services.orders.place(a.id, { tokenId: m.yes, side: 'SELL', limitPrice: 0.55, size: 10, timeInForce: 'GTC' }, new Date());
    book([[0.6, 25]], [[0.7, 100]]);
    for (let round = 0; round < 4; round += 1) await bothSee(0.6, 0.7);
    const sold = await one.services.db.query<{ shares: bigint }>(
      `SELECT coalesce(sum(filled_shares_micro), 0) AS shares FROM orders WHERE token_id = $1 AND side = 'SELL'`,
      [m.yes],
    );
    expect(BigInt(sold[0]!.shares)).toBe(25_000_000n);
    expect(await taken('bid')).toBe(25_000_000n);
  });

  test('when new IOC buys in both processes take from the book a resting buy also takes from, then all together take what it showed', async () => {
    const resting = await registerAgent(one);
    await one.services.orders.place(resting.id, { tokenId: m.yes, side: 'BUY', limitPrice: 0.5, size: 3, timeInForce: 'GTC' }, new Date());
    book(
      [[0.45, 100]],
      [
        [0.5, 20],
        [0.6, 1000],
      ],
    );
    const takers = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => registerAgent(i % 2 ? two : one)));
    await Promise.all([
      bothSee(0.45, 0.5),
      ...takers.map((a, i) =>
        (i % 2 ? two : one).services.orders.place(a.id, { tokenId: m.yes, side: 'BUY', limitPrice: 0.5, size: 2, timeInForce: 'IOC' }, new Date()),
      ),
    ]);
    await bothSee(0.45, 0.5);
    // $3 + 6 × $2 = $15 wanted; the book shows $10 at 0.50.
    expect(await filled()).toEqual({ shares: 20, cash: 10 });
    expect(await taken()).toBe(20_000_000n);
  });
});
