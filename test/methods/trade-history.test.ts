import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ManualClock, MINUTE, accessToken, signedInPerson } from '../support/identity';
import { ControlledPrices, resolveMarket, seedMarket, type SeededMarket } from '../support/markets';
import { mcpCall, rpcCall } from '../support/rpc';
import { auditLedger } from '../../src/domain/audit/ledger-audit';

type Trade = { id: string; kind: string; marketId: string; realizedPnl: number | null };

describe.each(backends())('list_trades on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  const clock = new ManualClock();
  let agent: { id: string; apiKey: string };
  let m1: SeededMarket;
  let m2: SeededMarket;

  const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
  const trades = (headers: Record<string, string>, query: Record<string, string | number> = {}) => t.api.get('/api/trades').set(headers).query(query);
  const buy = (key: string, m: SeededMarket, outcome: 'YES' | 'NO', amount: number) =>
    t.api
      .post('/api/trade')
      .set(bearer(key))
      .send({ marketId: m.id, marketSlug: m.slug, tokenId: outcome === 'YES' ? m.yes : m.no, outcome, amount });

  /** A buy of YES in m1, a partial sale, a NO buy in m2, then m1 resolves YES and the rest of the YES position settles. */
  beforeAll(async () => {
    t = await startTestApp(backend, { prices, clock });
    m1 = await seedMarket(t.services.db);
    m2 = await seedMarket(t.services.db);
    prices.set(m1.yes, 0.6, 0.625);
    prices.set(m2.no, 0.37, 0.4);
    agent = await registerAgent(t, 'Historian');
    const bought = await buy(agent.apiKey, m1, 'YES', 100);
    expect(bought.body.quantity).toBe(160);
    clock.advance(MINUTE);
    const sold = await t.api.post(`/api/positions/${bought.body.positionId}/sell`).set(bearer(agent.apiKey)).send({ quantity: 40 });
    expect(sold.status).toBe(200);
    clock.advance(MINUTE);
    expect((await buy(agent.apiKey, m2, 'NO', 20)).status).toBe(200);
    clock.advance(MINUTE);
    await resolveMarket(t.services.db, m1.id, 'YES');
    expect(await t.services.settlement.runOnce(clock.now())).toBe(1);
  });
  afterAll(async () => {
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
    await t.close();
  });

  test('when an agent lists its trades, then buys, sells and settlements come newest first with the money each moved', async () => {
    const res = await trades(bearer(agent.apiKey));
    expect(res.status).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.trades.map((x: Trade) => x.kind)).toEqual(['settlement', 'buy', 'sell', 'buy']);
    const [settled, noBuy, sale, yesBuy] = res.body.trades;
    expect(settled).toMatchObject({
      kind: 'settlement',
      marketId: m1.id,
      marketSlug: m1.slug,
      tokenId: m1.yes,
      outcome: 'YES',
      quantity: 120,
      price: 1,
      amount: 120,
      realizedPnl: 45,
      createdAt: new Date(Date.parse('2030-01-01T00:03:00Z')).toISOString(),
    });
    expect(noBuy).toMatchObject({ kind: 'buy', marketId: m2.id, tokenId: m2.no, outcome: 'NO', quantity: 50, price: 0.4, amount: 20, realizedPnl: null });
    expect(sale).toMatchObject({ kind: 'sell', quantity: 40, price: 0.6, amount: 24, realizedPnl: -1 });
    expect(yesBuy).toMatchObject({ kind: 'buy', quantity: 160, price: 0.625, amount: 100, realizedPnl: null });
    expect(yesBuy.question).toMatch(/^Will test market \d+ resolve YES\?$/);
  });

  test('when paging one at a time or filtering by market, then each trade comes exactly once', async () => {
    const all = (await trades(bearer(agent.apiKey))).body.trades.map((x: Trade) => x.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await trades(bearer(agent.apiKey), { limit: 1, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      seen.push(...res.body.trades.map((x: Trade) => x.id));
      cursor = res.body.nextCursor;
    } while (cursor && seen.length < 10);
    expect(seen).toEqual(all);
    const inM1 = await trades(bearer(agent.apiKey), { marketId: m1.id });
    expect(inM1.body.trades.map((x: Trade) => x.kind)).toEqual(['settlement', 'sell', 'buy']);
  });

  test('when many trades share one instant, then pages split them by id without repeating or losing one', async () => {
    const busy = await registerAgent(t, 'Busy');
    for (let i = 0; i < 5; i += 1) expect((await buy(busy.apiKey, m2, 'NO', 1 + i)).status).toBe(200);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await trades(bearer(busy.apiKey), { limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...res.body.trades.map((x: Trade) => x.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(5);
    expect(seen).toEqual([...seen].sort().reverse());
  });

  test('when another account, an OAuth token or a browser session asks, then each sees only its own trades', async () => {
    const other = await registerAgent(t, 'Other');
    expect((await trades(bearer(other.apiKey))).body).toEqual({ trades: [], nextCursor: null });
    const token = await accessToken(t, agent);
    expect((await trades(bearer(token))).body.trades).toHaveLength(4);
    const person = await signedInPerson(t);
    const res = await trades({ Cookie: person.cookie });
    expect(res.status).toBe(200);
    expect(res.body.trades).toEqual([]);
  });

  test('when no credentials are sent, then 401', async () => {
    const res = await t.api.get('/api/trades');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  test.each([
    ['a cursor that is not ours', { cursor: 'abc' }],
    ['a cursor with a bad id', { cursor: Buffer.from('{"s":"newest","k":"2030-01-01 00:00:00+00","i":"x"}').toString('base64url') }],
    ['a cursor of the market list', { cursor: Buffer.from('{"s":"volume","k":"100","i":"a-01"}').toString('base64url') }],
    ['limit 0', { limit: 0 }],
    ['limit 101', { limit: 101 }],
  ])('when given %s, then 400 VALIDATION_ERROR', async (_label, query) => {
    const res = await trades(bearer(agent.apiKey), query as Record<string, string | number>);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  test('when called over JSON-RPC and MCP with the key, then the result is the REST body; without it, an auth error', async () => {
    const rest = (await trades(bearer(agent.apiKey), { limit: 2 })).body;
    expect((await rpcCall(t, 'list_trades', { limit: 2 }, bearer(agent.apiKey))).result).toEqual(rest);
    expect((await mcpCall(t, 'list_trades', { limit: 2 }, bearer(agent.apiKey))).result.structuredContent).toEqual(rest);
    expect((await rpcCall(t, 'list_trades', {})).error.data.code).toBe('UNAUTHORIZED');
  });

  test('when a later page is planned without sequential scans, then it walks the account index from the cursor', async () => {
    const first = await trades(bearer(agent.apiKey), { limit: 1 });
    const cursor = JSON.parse(Buffer.from(first.body.nextCursor, 'base64url').toString('utf8'));
    const plan = await t.services.db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      await tx.query('SET LOCAL enable_bitmapscan = off');
      return tx.query<{ 'QUERY PLAN': string }>(
        'EXPLAIN SELECT id FROM trades t WHERE t.user_id = $1 AND (t.created_at, t.id) < ($2::timestamptz, $3::uuid) ORDER BY t.created_at DESC, t.id DESC LIMIT 51',
        [agent.id, cursor.k, cursor.i],
      );
    });
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain('trades_user_created_id');
    expect(text).toMatch(/Index Cond: .*ROW\(/);
  });
});
