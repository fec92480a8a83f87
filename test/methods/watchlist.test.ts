import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { seedMarket, type SeededMarket } from '../support/markets';
import { agentTrader, personTrader, type Trader } from '../support/traders';
import { mcpCall, rpcCall } from '../support/rpc';
import { toMicro } from '../../src/domain/money/micro';

/** A price change of the YES token as the sync announces it: bid and ask one cent either side of `mid`. */
const yesAt = (m: SeededMarket, mid: number) => [
  { tokenId: m.yes, bidMicro: toMicro(mid - 0.01), askMicro: toMicro(mid + 0.01), asOf: new Date(), source: 'simulated' as const },
];

describe.each(backends())('watch_market, unwatch_market and list_watchlist on $name', (backend) => {
  let t: TestApp;
  let person: Trader;
  let market: SeededMarket;
  beforeAll(async () => {
    t = await startTestApp(backend, { background: false, config: { WATCHLIST_MAX_MARKETS: 2 } });
    person = await personTrader(t);
    market = await seedMarket(t.services.db, { question: 'Will the watched market move?' });
  });
  afterAll(async () => t.close());

  const watchlist = async (who: Trader) => (await t.api.get('/api/watchlist').set(who.headers)).body.markets as Array<Record<string, unknown>>;

  test('when a person watches a market with an alert above, then the price crosses it, one notification and one event are written and the alert stays quiet until set again', async () => {
    const res = await t.api.post('/api/watchlist').set(person.headers).send({ marketSlug: market.slug, alertAbove: 0.6 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ added: true, market: { marketId: market.id, yesPrice: 0.5, alert: { above: 0.6, aboveFiredAt: null, below: null } } });

    await t.services.priceChanges.emit(yesAt(market, 0.55));
    let notes = await t.api.get('/api/notifications').set(person.headers);
    expect(notes.body.notifications.filter((n: { type: string }) => n.type === 'price_alert')).toHaveLength(0);

    await t.services.priceChanges.emit(yesAt(market, 0.62));
    await t.services.priceChanges.emit(yesAt(market, 0.7));
    notes = await t.api.get('/api/notifications').set(person.headers);
    const alerts = notes.body.notifications.filter((n: { type: string }) => n.type === 'price_alert');
    expect(alerts).toHaveLength(1);
    expect(alerts[0].message).toBe('YES is at 62¢, at or above your alert at 60¢.');
    const events = await t.api.get('/api/user/events').set(person.headers);
    expect(events.status).toBe(200);
    const noted = (events.body.events as Array<{ type: string; data: { kind: string } }>).filter(
      (e) => e.type === 'notification' && e.data.kind === 'price_alert',
    );
    expect(noted).toHaveLength(1);
    expect((await watchlist(person))[0]).toMatchObject({ alert: { above: 0.6, aboveFiredAt: expect.any(String) } });

    // Set again: re-armed, and it fires at the next change at or above it.
    const again = await t.api.post('/api/watchlist').set(person.headers).send({ marketId: market.id, alertAbove: 0.6 });
    expect(again.body).toMatchObject({ added: false, market: { alert: { above: 0.6, aboveFiredAt: null } } });
    await t.services.priceChanges.emit(yesAt(market, 0.65));
    notes = await t.api.get('/api/notifications').set(person.headers);
    expect(notes.body.notifications.filter((n: { type: string }) => n.type === 'price_alert')).toHaveLength(2);
  });

  test('when the watchlist is full, another market is refused with CONFLICT and nothing is added', async () => {
    const agent = await agentTrader(t);
    const a = await seedMarket(t.services.db);
    const b = await seedMarket(t.services.db);
    const c = await seedMarket(t.services.db);
    for (const m of [a, b]) expect((await t.api.post('/api/watchlist').set(agent.headers).send({ marketId: m.id })).status).toBe(200);
    const over = await t.api.post('/api/watchlist').set(agent.headers).send({ marketId: c.id });
    expect(over.status).toBe(409);
    expect(over.body.code).toBe('CONFLICT');
    expect((await watchlist(agent)).map((m) => m.marketId)).toEqual([b.id, a.id]);
    // Watching one already there is an update, not an add: allowed when full.
    expect((await t.api.post('/api/watchlist').set(agent.headers).send({ marketId: a.id, alertBelow: 0.2 })).status).toBe(200);
  });

  test('when input is bad or the market unknown, a stable error comes back and nothing changes', async () => {
    const agent = await agentTrader(t);
    const none = await t.api.post('/api/watchlist').set(agent.headers).send({});
    expect(none.status).toBe(400);
    expect(none.body.code).toBe('VALIDATION_ERROR');
    const bad = await t.api.post('/api/watchlist').set(agent.headers).send({ marketId: market.id, alertAbove: 1.5 });
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    const unknown = await t.api.post('/api/watchlist').set(agent.headers).send({ marketId: 'no-such-market' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
    const notWatched = await t.api.delete(`/api/watchlist/${market.id}`).set(agent.headers);
    expect(notWatched.status).toBe(404);
    expect(await watchlist(agent)).toEqual([]);
    expect((await t.api.get('/api/watchlist')).status).toBe(401);
  });

  test('when an account is deleted, then its watchlist and alerts go with it', async () => {
    const agent = await agentTrader(t);
    expect((await t.api.post('/api/watchlist').set(agent.headers).send({ marketId: market.id, alertAbove: 0.9 })).status).toBe(200);
    expect((await t.api.post('/api/user/delete').set(agent.headers).send({ password: 'password123' })).status).toBe(200);
    const rows = await t.services.db.query('SELECT 1 FROM watchlist_entries WHERE user_id = $1', [agent.id]);
    expect(rows).toHaveLength(0);
  });

  test('when an agent uses JSON-RPC and MCP, it watches, lists and unwatches the same watchlist', async () => {
    const agent = await agentTrader(t);
    const added = await rpcCall(t, 'watch_market', { marketId: market.id, alertBelow: 0.3 }, agent.headers);
    expect(added).toMatchObject({ result: { added: true, market: { alert: { below: 0.3 } } } });
    const listed = await mcpCall(t, 'list_watchlist', {}, agent.headers);
    expect(JSON.stringify(listed)).toContain(market.id);
    const removed = await t.api.delete(`/api/watchlist/${market.id}`).set(agent.headers);
    expect(removed.body).toEqual({ success: true });
    expect(await watchlist(agent)).toEqual([]);
  });
});
