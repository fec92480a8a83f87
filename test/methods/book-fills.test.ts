import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, seedMarket, type SeededMarket } from '../support/markets';
import { auditLedger } from '../../src/domain/audit/ledger-audit';
import { TradingService } from '../../src/domain/trading/trading-service';
import { TradeHooks } from '../../src/domain/trading/trade-hooks';

const ASKS: Array<[number, number]> = [
  [0.4, 100],
  [0.42, 50],
  [0.45, 200],
];
const BIDS: Array<[number, number]> = [
  [0.38, 100],
  [0.35, 100],
];

describe.each(backends())('market orders walk the book on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;

  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(async () => {
    const report = await auditLedger(t.services.db);
    expect(report.violations).toEqual([]);
    await t.close();
  });
  beforeEach(async () => {
    m = await seedMarket(t.services.db);
    prices.book(m.yes, BIDS, ASKS);
  });

  const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
  const buy = (key: string, over: Record<string, unknown> = {}) =>
    t.api
      .post('/api/trade')
      .set(bearer(key))
      .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 100, ...over });
  const quote = (key: string | null, body: Record<string, unknown>) => {
    const req = t.api.post('/api/trade/quote');
    return (key ? req.set(bearer(key)) : req).send({ tokenId: m.yes, side: 'BUY', ...body });
  };
  const balance = async (key: string) => (await t.api.get('/api/user/balance').set(bearer(key))).body.balance as number;
  const tradeRows = (userId: string) =>
    t.services.db.query<{ side: string; quantity_micro: bigint; price_micro: bigint; cash_micro: bigint; fee_micro: bigint }>(
      'SELECT side, quantity_micro, price_micro, cash_micro, fee_micro FROM trades WHERE user_id = $1 ORDER BY created_at, side',
      [userId],
    );

  test('when a 100-dollar buy walks three ask levels, then it fills at their volume-weighted average, as quoted beforehand', async () => {
    const a = await registerAgent(t);
    // 100 × 0.40 + 50 × 0.42 = 61 dollars; 39 / 0.45 = 86.666666 shares more: 236.666666 shares, 100 / … = 0.422536 (rounded up).
    const q = await quote(a.apiKey, { amount: 100 });
    expect(q.status).toBe(200);
    expect(q.body).toMatchObject({
      price: 0.422536,
      shares: 236.666666,
      amount: 100,
      bestPrice: 0.4,
      worstPrice: 0.45,
      slippage: 0.022536,
      fee: 0,
      feeRateBps: 0,
      levels: [
        { price: 0.4, shares: 100 },
        { price: 0.42, shares: 50 },
        { price: 0.45, shares: 86.666666 },
      ],
    });
    const res = await buy(a.apiKey);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ quantity: 236.666666, price: 0.422536, totalCost: 100, balance: 900 });
    expect(await tradeRows(a.id)).toEqual([{ side: 'BUY', quantity_micro: 236_666_666n, price_micro: 422_536n, cash_micro: -100_000_000n, fee_micro: 0n }]);
  });

  test('when a buy asks more than the book shows, then INSUFFICIENT_DEPTH names the depth and nothing changes', async () => {
    const a = await registerAgent(t);
    for (const res of [await buy(a.apiKey, { amount: 200 }), await quote(a.apiKey, { amount: 200 })]) {
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INSUFFICIENT_DEPTH');
      // The whole book: 350 shares for 40 + 21 + 90 = 151 dollars, up to 0.45.
      expect(res.body.error).toContain('350 shares up to 0.45 (costing 151 dollars');
    }
    expect(await balance(a.apiKey)).toBe(1000);
    expect(await tradeRows(a.id)).toEqual([]);
  });

  test("when an order is split, then each piece starts where the account's last one left the snapshot; other accounts and a new snapshot start afresh", async () => {
    const a = await registerAgent(t);
    const b = await registerAgent(t);
    // 40 dollars take the whole 0.40 level; the next 21 dollars are priced at 0.42, not at the best ask again.
    expect((await buy(a.apiKey, { amount: 40 })).body).toMatchObject({ quantity: 100, price: 0.4 });
    expect((await quote(a.apiKey, { amount: 21 })).body).toMatchObject({ price: 0.42, bestPrice: 0.42, shares: 50 });
    expect((await quote(null, { amount: 21 })).body).toMatchObject({ price: 0.4, shares: 52.5 }); // anonymous: the book as shown
    expect((await buy(a.apiKey, { amount: 21 })).body).toMatchObject({ quantity: 50, price: 0.42 });
    // What is left of this snapshot for a: 200 shares at 0.45 (90 dollars); more is refused.
    expect((await buy(a.apiKey, { amount: 91 })).body.code).toBe('INSUFFICIENT_DEPTH');
    // Another account walks the book as published.
    expect((await buy(b.apiKey, { amount: 40 })).body).toMatchObject({ quantity: 100, price: 0.4 });
    // The memory is in the database: a trading service that never saw these trades (another process) continues from it.
    const fresh = new TradingService(t.services.db, prices, new TradeHooks());
    const q = await fresh.quote({ side: 'BUY', tokenId: m.yes, amount: 9 }, a.id);
    expect(q).toMatchObject({ price: 0.45, quantity: 20 });
    // The venue's next snapshot (any change of its levels) is a fresh book for everyone.
    prices.book(m.yes, BIDS, [[0.4, 101], ...ASKS.slice(1)]);
    expect((await buy(a.apiKey, { amount: 40 })).body).toMatchObject({ quantity: 100, price: 0.4 });
  });

  test('when one account sends two buys at once, then they take the book one after the other (the record is locked), never the best level twice', async () => {
    const a = await registerAgent(t);
    const [x, y] = await Promise.all([buy(a.apiKey, { amount: 40 }), buy(a.apiKey, { amount: 40 })]);
    expect([x.status, y.status]).toEqual([200, 200]);
    // One takes the 100 shares at 0.40; the other 50 at 0.42 (21 dollars) and 19 / 0.45 = 42.222222 at 0.45.
    const fills = [x.body, y.body].map((b) => [b.quantity, b.price]).sort((p, q) => (p[1] as number) - (q[1] as number));
    expect(fills).toEqual([
      [100, 0.4],
      [92.222222, 0.433735],
    ]);
  });

  test('when a sale walks two bid levels, then it is paid their average and its consumption is remembered too', async () => {
    const a = await registerAgent(t);
    const bought = await buy(a.apiKey, { amount: undefined, shares: 300 });
    // 100 × 0.40 + 50 × 0.42 + 150 × 0.45 = 128.5 dollars.
    expect(bought.body).toMatchObject({ quantity: 300, totalCost: 128.5, price: 0.428334 });
    const sold = await t.api.post(`/api/positions/${bought.body.positionId}/sell`).set(bearer(a.apiKey)).send({ quantity: 150 });
    // 100 × 0.38 + 50 × 0.35 = 55.50 for 150 shares: 0.37 a share.
    expect(sold.status).toBe(200);
    expect(sold.body).toMatchObject({ quantitySold: 150, price: 0.37, proceeds: 55.5 });
    const rest = await t.api.post(`/api/positions/${bought.body.positionId}/sell`).set(bearer(a.apiKey)).send({ quantity: 60 });
    expect(rest.body.code).toBe('INSUFFICIENT_DEPTH'); // 50 shares left at 0.35 for this account
    expect((await t.api.post(`/api/positions/${bought.body.positionId}/sell`).set(bearer(a.apiKey)).send({ quantity: 50 })).body).toMatchObject({
      price: 0.35,
      proceeds: 17.5,
    });
  });
});

describe.each(backends())("the simulated venue's fee on $name", (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;

  beforeAll(async () => {
    t = await startTestApp(backend, { prices, config: { SIM_FEE_BPS: 200 } });
  });
  afterAll(async () => {
    const report = await auditLedger(t.services.db);
    expect(report.violations).toEqual([]);
    await t.close();
  });
  beforeEach(async () => {
    m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.49, 0.5); // no published book: the simulated venue's own, $2,500 at the best level
  });

  test('when SIM_FEE_BPS is 200, then a 50-dollar buy pays 0.02 × 0.50 a share out of its amount and a sale pays 0.02 × 0.49, to the micro-dollar', async () => {
    const a = await registerAgent(t);
    const key = { Authorization: `Bearer ${a.apiKey}` };
    // All-in 0.51 a share: floor(50 / 0.51) = 98.039215 shares; fee 0.01 × 98.039215 = 0.98039215 → 0.980393.
    const q = await t.api.post('/api/trade/quote').set(key).send({ tokenId: m.yes, side: 'BUY', amount: 50 });
    expect(q.body).toMatchObject({ price: 0.5, shares: 98.039215, amount: 50, fee: 0.980393, feeRateBps: 200, slippage: 0 });
    const res = await t.api.post('/api/trade').set(key).send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 50 });
    expect(res.body).toMatchObject({ quantity: 98.039215, price: 0.5, totalCost: 50, balance: 950 });
    // Sale: 98.039215 × 0.49 = 48.03921535 → 48.039215; fee 0.0098 × 98.039215 = 0.960784307 → 0.960785; 47.07843 credited.
    const sold = await t.api.post(`/api/positions/${res.body.positionId}/sell`).set(key).send({});
    expect(sold.body).toMatchObject({ quantitySold: 98.039215, price: 0.49, proceeds: 47.07843, realizedPnl: -2.92157 });
    const rows = await t.services.db.query<{ side: string; fee_micro: bigint; cash_micro: bigint }>(
      'SELECT side, fee_micro, cash_micro FROM trades WHERE user_id = $1 ORDER BY side',
      [a.id],
    );
    expect(rows).toEqual([
      { side: 'BUY', fee_micro: 980_393n, cash_micro: -50_000_000n },
      { side: 'SELL', fee_micro: 960_785n, cash_micro: 47_078_430n },
    ]);
    // Each fee is a transfer of its own, the account's cash to the venue, beside the price: the buy's 50 dollars are
    // 49.019607 to the venue for the shares and 0.980393 of fee; the sale's 48.039215 come from the venue and 0.960785
    // of them go back as its fee.
    const moves = await t.services.db.query<{ kind: string; debit: string; credit: string; amount: bigint }>(
      `SELECT m.kind, m.debit_account AS debit, m.credit_account AS credit, m.amount_micro AS amount FROM transfers m JOIN trades r ON r.id::text = m.ref
       WHERE r.user_id = $1 AND m.asset = 'USD' AND m.phase = 'posted' ORDER BY r.side, m.kind`,
      [a.id],
    );
    const cash = `cash:${a.id}`;
    expect(moves).toEqual([
      { kind: 'buy', debit: cash, credit: 'venue', amount: 49_019_607n },
      { kind: 'fee', debit: cash, credit: 'venue', amount: 980_393n },
      { kind: 'fee', debit: cash, credit: 'venue', amount: 960_785n },
      { kind: 'sell', debit: 'venue', credit: cash, amount: 48_039_215n },
    ]);
    // Checked independently in floating point: the fees are the products rounded up to the micro-dollar.
    expect(Math.ceil(98.039215 * 0.02 * 0.5 * 1e6 - 1e-6)).toBe(980_393);
    expect(Math.ceil(98.039215 * 0.02 * 0.49 * 1e6 - 1e-6)).toBe(960_785);
  });
});
