import { backends, type Backend } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, moveQuote, seedMarket } from '../support/markets';
import { mcpCall, rpcCall } from '../support/rpc';

/** Issue 34 item 1: a field a method does not declare is refused on every surface, named, and nothing changes. */
function suite(backend: Backend) {
  let t: TestApp;
  const prices = new ControlledPrices();
  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(() => t.close());

  test('when a market buy carries a stray limitPrice, then it is refused naming the field, on REST, JSON-RPC and MCP, and nothing is bought', async () => {
    const a = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    await moveQuote(t.services.db, prices, m.yes, 0.48, 0.49);
    const input = { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 10, limitPrice: 0.1 };
    const auth = { Authorization: `Bearer ${a.apiKey}` };

    const rest = await t.api.post('/api/trade').set(auth).send(input);
    expect(rest.status).toBe(400);
    expect(rest.body.code).toBe('VALIDATION_ERROR');
    expect(rest.body.error).toContain('unknown field limitPrice');
    expect(rest.body.details).toEqual([expect.objectContaining({ code: 'unrecognized_keys' })]);

    const rpc = await rpcCall(t, 'paper_trade', input, auth);
    expect(rpc.error.data.code).toBe('VALIDATION_ERROR');
    expect(rpc.error.message).toContain('limitPrice');

    const mcp = await mcpCall(t, 'paper_trade', input, auth);
    expect(mcp.result.isError).toBe(true);
    expect(JSON.stringify(mcp.result.structuredContent ?? mcp.result.content)).toContain('limitPrice');

    const typo = await t.api
      .post('/api/trade')
      .set(auth)
      .send({ ...input, limitPrice: undefined, ammount: 10, amount: undefined });
    expect(typo.status).toBe(400);
    expect(typo.body.error).toContain('ammount (did you mean amount?)');

    const balance = await t.api.get('/api/user/balance').set(auth);
    expect(balance.body.balance).toBe(1000);
    expect((await t.api.get('/api/positions').set(auth)).body.positions ?? []).toEqual([]);
  });

  test('when a query string carries an unknown parameter, then a read is refused too', async () => {
    const res = await t.api.get('/api/benchmark/leaderboard').query({ metrc: 'alpha' });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('metrc (did you mean metric?)');
  });
}

describe.each(backends())('strict inputs on $name', suite);
