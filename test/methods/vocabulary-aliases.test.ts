import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, moveQuote, seedMarket, type SeededMarket } from '../support/markets';
import { auditLedger } from '../../src/domain/audit/ledger-audit';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/**
 * Every input renamed to its glossary name (docs/glossary.md) with the old name kept as a deprecated alias for one
 * version: method, alias, the glossary name, and where REST sends it.
 */
const RENAMED_INPUTS = [
  { method: 'place_order', alias: 'size', use: 'amount', path: '/api/orders', verb: 'post' },
  { method: 'place_orders', alias: 'size', use: 'amount', path: '/api/orders/batch', verb: 'post', item: 'orders' },
  { method: 'replace_order', alias: 'size', use: 'amount', path: '/api/orders/{id}/replace', verb: 'post' },
  { method: 'quote_trade', alias: 'quantity', use: 'shares', path: '/api/trade/quote', verb: 'post' },
  { method: 'quote_community_trade', alias: 'quantity', use: 'shares', path: '/api/user-markets/quote', verb: 'post' },
  { method: 'buy_community_shares', alias: 'maxAveragePrice', use: 'maxAvgPrice', path: '/api/user-markets/trade', verb: 'post' },
  { method: 'sell_community_shares', alias: 'minAveragePrice', use: 'minAvgPrice', path: '/api/user-markets/positions/{id}/sell', verb: 'post' },
  { method: 'list_events', alias: 'afterSeq', use: 'cursor', path: '/api/user/events', verb: 'get' },
  // The stated probability (issue 51 item 3): one name, probability / probabilities.
  { method: 'paper_trade', alias: 'forecast', use: 'probability', path: '/api/trade', verb: 'post' },
  { method: 'place_order', alias: 'forecast', use: 'probability', path: '/api/orders', verb: 'post' },
  { method: 'place_orders', alias: 'forecast', use: 'probability', path: '/api/orders/batch', verb: 'post', item: 'orders' },
  { method: 'buy_community_shares', alias: 'forecasts', use: 'probabilities', path: '/api/user-markets/trade', verb: 'post' },
] as const;

/** The Unix seconds of a UTC date (the RFC 9745 Deprecation header's `@` form), computed here from the calendar. */
const unixSeconds = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d) / 1000;

describe.each(backends())('one vocabulary: new names and deprecated aliases on $name', (backend) => {
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
    await moveQuote(t.services.db, prices, m.yes, 0.6, 0.625);
    await moveQuote(t.services.db, prices, m.no, 0.37, 0.4);
  });

  const trade = (key: string, size: Record<string, unknown>) =>
    t.api
      .post('/api/trade')
      .set(bearer(key))
      .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', ...size });
  const balance = async (key: string) => (await t.api.get('/api/user/balance').set(bearer(key))).body.balance as number;

  describe('paper_trade sized by shares', () => {
    test('when an agent buys 10 shares at an ask of 0.625, then it holds exactly 10 shares and paid 6.25', async () => {
      const a = await registerAgent(t);
      const res = await trade(a.apiKey, { shares: 10 });
      expect(res.status).toBe(200);
      // Independently: 10 × 0.625 in micro-dollars, rounded up.
      expect(Math.ceil((10_000_000 * 625_000) / 1_000_000) / 1_000_000).toBe(6.25);
      expect(res.body).toMatchObject({ success: true, quantity: 10, price: 0.625, totalCost: 6.25, balance: 993.75 });
      const pf = await t.api.get('/api/positions').set(bearer(a.apiKey));
      expect(pf.body.positions[0]).toMatchObject({ quantity: 10, avgPrice: 0.625 });
    });

    test('when the cost of the shares is not a whole micro-dollar, then it is rounded up: 0.000003 shares at 0.625 cost 0.000002', async () => {
      const a = await registerAgent(t);
      const res = await trade(a.apiKey, { shares: 0.000003 });
      expect(res.status).toBe(200);
      // 3 micro-shares × 0.625 = 1.875 micro-dollars → 2.
      expect(Math.ceil((3 * 625_000) / 1_000_000)).toBe(2);
      expect(res.body).toMatchObject({ quantity: 0.000003, totalCost: 0.000002, balance: 999.999998 });
    });

    test('when both amount and shares are sent, or neither, then 400 VALIDATION_ERROR saying so and nothing changes', async () => {
      const a = await registerAgent(t);
      for (const size of [{ amount: 10, shares: 10 }, {}]) {
        const res = await trade(a.apiKey, size);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
        expect(res.body.error).toContain('exactly one of amount');
      }
      expect(await balance(a.apiKey)).toBe(1000);
      expect((await t.api.get('/api/positions').set(bearer(a.apiKey))).body.positions).toEqual([]);
    });

    test('when the shares would cost more than the 1,000,000 a trade may spend, then VALIDATION_ERROR and nothing changes', async () => {
      const a = await registerAgent(t);
      const res = await trade(a.apiKey, { shares: 2_000_000 });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(await balance(a.apiKey)).toBe(1000);
    });
  });

  describe('orders sized by amount (BUY) or shares (BUY or SELL)', () => {
    const place = (key: string, body: Record<string, unknown>) =>
      t.api
        .post('/api/orders')
        .set(bearer(key))
        .send({ tokenId: m.yes, timeInForce: 'GTC', ...body });

    test('when a BUY is sized by amount, then it rests with amount set, shares null, and the deprecated size equal to amount', async () => {
      const a = await registerAgent(t);
      const res = await place(a.apiKey, { side: 'BUY', limitPrice: 0.5, amount: 40 });
      expect(res.status).toBe(200);
      expect(res.body.order).toMatchObject({ side: 'BUY', amount: 40, shares: null, size: 40, reservedCash: 40, avgPrice: null, avgFillPrice: null });
    });

    test('when a BUY is sized by the deprecated size, then it is placed exactly as with amount', async () => {
      const a = await registerAgent(t);
      const res = await place(a.apiKey, { side: 'BUY', limitPrice: 0.5, size: 40 });
      expect(res.status).toBe(200);
      expect(res.body.order).toMatchObject({ amount: 40, shares: null, size: 40, reservedCash: 40 });
    });

    test('when a SELL is sized by shares, then it reserves those shares; a fill reports avgPrice and the deprecated avgFillPrice alike', async () => {
      const a = await registerAgent(t);
      expect((await trade(a.apiKey, { shares: 20 })).status).toBe(200);
      const res = await place(a.apiKey, { side: 'SELL', limitPrice: 0.9, shares: 5 });
      expect(res.status).toBe(200);
      expect(res.body.order).toMatchObject({ side: 'SELL', amount: null, shares: 5, size: 5, reservedShares: 5 });
      const now = await place(a.apiKey, { side: 'SELL', limitPrice: 0.5, shares: 4 });
      expect(now.body.order).toMatchObject({ state: 'filled', filledShares: 4, filledCash: 2.4, avgPrice: 0.6, avgFillPrice: 0.6 });
    });

    test('when a BUY is sized by shares, then it is accepted with shares set, amount null, and shares × limit reserved', async () => {
      const a = await registerAgent(t);
      const res = await place(a.apiKey, { side: 'BUY', limitPrice: 0.5, shares: 10 });
      expect(res.status).toBe(200);
      expect(res.body.order).toMatchObject({ side: 'BUY', amount: null, shares: 10, size: 10, reservedCash: 5 });
      expect((await t.api.get('/api/user/balance').set(bearer(a.apiKey))).body).toEqual({ balance: 1000, reserved: 5, available: 995 });
    });

    test('when a SELL is sized by amount, or a size is sent twice or not at all, then VALIDATION_ERROR and nothing is placed', async () => {
      const a = await registerAgent(t);
      const refused = [
        await place(a.apiKey, { side: 'SELL', limitPrice: 0.5, amount: 10 }),
        await place(a.apiKey, { side: 'BUY', limitPrice: 0.5, amount: 10, size: 10 }),
        await place(a.apiKey, { side: 'BUY', limitPrice: 0.5, amount: 10, shares: 10 }),
        await place(a.apiKey, { side: 'BUY', limitPrice: 0.5 }),
      ];
      expect(refused.map((r) => [r.status, r.body.code])).toEqual(Array(4).fill([400, 'VALIDATION_ERROR']));
      expect((await t.api.get('/api/orders').set(bearer(a.apiKey))).body.orders).toEqual([]);
      expect((await t.api.get('/api/user/balance').set(bearer(a.apiKey))).body).toEqual({ balance: 1000, reserved: 0, available: 1000 });
    });

    test('when an order is amended by amount, then its new total is that amount (size, the deprecated alias, does the same)', async () => {
      const a = await registerAgent(t);
      const placed = (await place(a.apiKey, { side: 'BUY', limitPrice: 0.5, amount: 40 })).body.order;
      const amended = await t.api.post(`/api/orders/${placed.id}/replace`).set(bearer(a.apiKey)).send({ amount: 60 });
      expect(amended.status).toBe(200);
      expect(amended.body.order).toMatchObject({ amount: 60, reservedCash: 60 });
      const old = await t.api.post(`/api/orders/${placed.id}/replace`).set(bearer(a.apiKey)).send({ size: 50 });
      expect(old.body.order).toMatchObject({ amount: 50, reservedCash: 50 });
      const wrongUnit = await t.api.post(`/api/orders/${placed.id}/replace`).set(bearer(a.apiKey)).send({ shares: 50 });
      expect([wrongUnit.status, wrongUnit.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    });
  });

  describe('the stated probability', () => {
    test('when paper_trade states probability, or the deprecated forecast, then each records that stated forecast; both at once is VALIDATION_ERROR', async () => {
      const a = await registerAgent(t);
      expect((await trade(a.apiKey, { amount: 10, probability: 0.7 })).status).toBe(200);
      const b = await registerAgent(t);
      expect((await trade(b.apiKey, { amount: 10, forecast: 0.65 })).status).toBe(200);
      const stated = async (key: string) => (await t.api.get('/api/forecasts').set(bearer(key))).body.forecasts.map((f: Json) => [f.source, f.probability]);
      expect(await stated(a.apiKey)).toEqual([['paper_trade', 0.7]]);
      expect(await stated(b.apiKey)).toEqual([['paper_trade', 0.65]]);
      const c = await registerAgent(t);
      const both = await trade(c.apiKey, { amount: 10, probability: 0.7, forecast: 0.7 });
      expect([both.status, both.body.code]).toEqual([400, 'VALIDATION_ERROR']);
      expect(await balance(c.apiKey)).toBe(1000);
    });
  });

  describe('Deprecation, Sunset and Prefer: strict-vocabulary', () => {
    const quote = (headers: Record<string, string> = {}, size: Record<string, unknown> = { shares: 10 }) =>
      t.api
        .post('/api/trade/quote')
        .set(headers)
        .send({ tokenId: m.yes, side: 'SELL', ...size });

    test('when an answer carries a deprecated field, then it says so: Deprecation @<unix seconds> and Sunset as an HTTP-date, with Vary: Prefer', async () => {
      const res = await quote();
      expect(res.status).toBe(200);
      expect(res.body.quantity).toBe(10); // quantity: deprecated on 2026-11-28, sunset 2027-03-01 (docs/glossary.md)
      expect(res.headers.deprecation).toBe(`@${unixSeconds(2026, 11, 28)}`);
      expect(res.headers.deprecation).toBe('@1795824000');
      expect(res.headers.sunset).toBe('Mon, 01 Mar 2027 00:00:00 GMT');
      expect(res.headers.vary).toMatch(/Prefer/);
    });

    test('when an answer carries no deprecated field, then it has no Deprecation or Sunset header', async () => {
      const res = await t.api.get('/api/markets').query({ limit: 1 });
      expect(res.status).toBe(200);
      expect(res.headers.deprecation).toBeUndefined();
      expect(res.headers.sunset).toBeUndefined();
    });

    test('when a call sends a deprecated input, then the answer carries the earliest dates of what it used', async () => {
      const a = await registerAgent(t);
      const res = await trade(a.apiKey, { amount: 10, forecast: 0.6 });
      expect(res.status).toBe(200);
      expect(res.headers.deprecation).toBe(`@${unixSeconds(2026, 12, 6)}`);
      expect(res.headers.sunset).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
    });

    test('when REST asks Prefer: strict-vocabulary, then the answer has no deprecated field and no Deprecation header; a deprecated input is refused and changes nothing', async () => {
      const res = await quote({ Prefer: 'strict-vocabulary' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ shares: 10, amount: 6, price: 0.6 });
      expect('quantity' in res.body).toBe(false);
      expect(res.headers['preference-applied']).toBe('strict-vocabulary');
      expect(res.headers.deprecation).toBeUndefined();
      const old = await quote({ Prefer: 'respond-async, strict-vocabulary' }, { quantity: 10 });
      expect([old.status, old.body.code]).toEqual([400, 'VALIDATION_ERROR']);
      expect(JSON.stringify(old.body)).toMatch(/quantity/);
      const a = await registerAgent(t);
      const refused = await trade(a.apiKey, { amount: 10, forecast: 0.6 }).set('Prefer', 'strict-vocabulary');
      expect([refused.status, refused.body.code]).toEqual([400, 'VALIDATION_ERROR']);
      expect(await balance(a.apiKey)).toBe(1000);
      // Orders: the three dead fields go, in a list too.
      const placed = await t.api
        .post('/api/orders')
        .set(bearer(a.apiKey))
        .set('Prefer', 'strict-vocabulary')
        .send({ tokenId: m.yes, side: 'BUY', limitPrice: 0.1, amount: 5 });
      expect(placed.status).toBe(200);
      const listed = await t.api.get('/api/orders').set(bearer(a.apiKey)).set('Prefer', 'strict-vocabulary');
      for (const order of [placed.body.order, listed.body.orders[0]]) {
        expect(order).toMatchObject({ amount: 5, shares: null, filledCash: 0 });
        expect(Object.keys(order).filter((k) => ['size', 'filledSize', 'avgFillPrice'].includes(k))).toEqual([]);
      }
      const loose = await t.api.get('/api/orders').set(bearer(a.apiKey));
      expect(loose.body.orders[0]).toMatchObject({ size: 5, filledSize: 0, avgFillPrice: null });
      expect(loose.headers.deprecation).toBe(`@${unixSeconds(2026, 11, 28)}`);
    });

    test('when JSON-RPC and MCP ask for the strict vocabulary (the header, or ?vocabulary=strict in the address), then they answer without deprecated fields', async () => {
      const params = { tokenId: m.yes, side: 'SELL', shares: 10 };
      const loose = await t.api.post('/api/a2a').send({ jsonrpc: '2.0', id: 1, method: 'quote_trade', params });
      expect(loose.body.result.quantity).toBe(10);
      expect(loose.headers.deprecation).toBe(`@${unixSeconds(2026, 11, 28)}`);
      for (const strict of [
        await t.api.post('/api/a2a').set('Prefer', 'strict-vocabulary').send({ jsonrpc: '2.0', id: 1, method: 'quote_trade', params }),
        await t.api.post('/api/a2a?vocabulary=strict').send({ jsonrpc: '2.0', id: 1, method: 'quote_trade', params }),
      ]) {
        expect(strict.body.result).toMatchObject({ shares: 10 });
        expect('quantity' in strict.body.result).toBe(false);
        expect(strict.headers.deprecation).toBeUndefined();
      }
      const send = (path: string, headers: Record<string, string> = {}) =>
        t.api
          .post(path)
          .set('Accept', 'application/json, text/event-stream')
          .set('X-MCP-Toolsets', 'all')
          .set(headers)
          .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'quote_trade', arguments: params } });
      const mcpLoose = await send('/mcp');
      expect(mcpLoose.body.result.structuredContent.quantity).toBe(10);
      expect(mcpLoose.headers.sunset).toBe('Mon, 01 Mar 2027 00:00:00 GMT');
      for (const strict of [await send('/mcp?vocabulary=strict'), await send('/mcp', { Prefer: 'strict-vocabulary' })]) {
        expect(strict.body.result.structuredContent).toMatchObject({ shares: 10 });
        expect('quantity' in strict.body.result.structuredContent).toBe(false);
        expect(JSON.parse(strict.body.result.content[0].text).quantity).toBeUndefined();
        expect(strict.headers['preference-applied']).toBe('strict-vocabulary');
      }
    });

    test('when A2A message/send (v1.0 and v0.3) calls a skill whose answer carries a deprecated field, then Deprecation and Sunset say so, and the strict vocabulary answers without it', async () => {
      // The SDK loads jose (ESM-only) by import(): one at a time here, as jest's module loader cannot link them at once.
      for (const entry of ['@a2a-js/sdk', '@a2a-js/sdk/server', '@a2a-js/sdk/compat/v0_3/server']) await import(entry);
      const input = { tokenId: m.yes, side: 'SELL', shares: 10 };
      const messages = [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: 'vocab-1', role: 'ROLE_USER', parts: [{ data: { skill: 'quote_trade', input } }] } },
        },
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'message/send',
          params: { message: { kind: 'message', messageId: 'vocab-2', role: 'user', parts: [{ kind: 'data', data: { skill: 'quote_trade', input } }] } },
        },
      ];
      const answerOf = (body: Json): Json => body.result.message?.parts?.[0]?.data ?? body.result.parts?.[0]?.data;
      for (const message of messages) {
        const loose = await t.api.post('/api/a2a').send(message);
        expect(loose.status).toBe(200);
        expect(answerOf(loose.body)).toMatchObject({ shares: 10, quantity: 10 });
        expect(loose.headers.deprecation).toBe(`@${unixSeconds(2026, 11, 28)}`);
        expect(loose.headers.sunset).toBe('Mon, 01 Mar 2027 00:00:00 GMT');
        expect(loose.headers.vary).toMatch(/Prefer/);
        for (const strict of [
          await t.api.post('/api/a2a').set('Prefer', 'strict-vocabulary').send(message),
          await t.api.post('/api/a2a?vocabulary=strict').send(message),
        ]) {
          expect(strict.status).toBe(200);
          expect(answerOf(strict.body)).toMatchObject({ shares: 10 });
          expect('quantity' in answerOf(strict.body)).toBe(false);
          expect(strict.headers['preference-applied']).toBe('strict-vocabulary');
          expect(strict.headers.deprecation).toBeUndefined();
        }
      }
      // A deprecated input is refused under the strict vocabulary on A2A too, with the stable code.
      const old = {
        ...messages[0]!,
        params: {
          message: {
            messageId: 'vocab-3',
            role: 'ROLE_USER',
            parts: [{ data: { skill: 'quote_trade', input: { tokenId: m.yes, side: 'SELL', quantity: 10 } } }],
          },
        },
      };
      const refused = await t.api.post('/api/a2a').set('Prefer', 'strict-vocabulary').send(old);
      expect(refused.body.error.data.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(refused.body.error)).toMatch(/quantity/);
    });
  });

  describe('renamed reads', () => {
    test('when quote_trade is sized by shares or the deprecated quantity, then both quote the same and answer shares', async () => {
      const byShares = await t.api.post('/api/trade/quote').send({ tokenId: m.yes, side: 'SELL', shares: 10 });
      const byQuantity = await t.api.post('/api/trade/quote').send({ tokenId: m.yes, side: 'SELL', quantity: 10 });
      expect(byShares.status).toBe(200);
      expect(byShares.body).toMatchObject({ shares: 10, quantity: 10, amount: 6, price: 0.6 });
      expect(byQuantity.body).toMatchObject({ shares: 10, quantity: 10, amount: 6 });
      const both = await t.api.post('/api/trade/quote').send({ tokenId: m.yes, side: 'SELL', shares: 10, quantity: 10 });
      expect([both.status, both.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    });

    test('when list_trades answers, then each trade carries shares and cash beside the deprecated quantity and amount', async () => {
      const a = await registerAgent(t);
      await trade(a.apiKey, { amount: 100 });
      const res = await t.api.get('/api/trades').set(bearer(a.apiKey));
      expect(res.body.trades[0]).toMatchObject({ kind: 'buy', shares: 160, quantity: 160, cash: 100, amount: 100 });
    });

    test('when list_events is paged by cursor or the deprecated afterSeq, then both read on from there; nextCursor equals lastSeq', async () => {
      const a = await registerAgent(t);
      await trade(a.apiKey, { amount: 10 });
      const first = await t.api.get('/api/user/events?limit=1').set(bearer(a.apiKey));
      expect(first.status).toBe(200);
      expect(first.body.nextCursor).toBe(first.body.lastSeq);
      const next = await t.api.get(`/api/user/events?limit=1&cursor=${first.body.nextCursor}`).set(bearer(a.apiKey));
      const old = await t.api.get(`/api/user/events?limit=1&afterSeq=${first.body.nextCursor}`).set(bearer(a.apiKey));
      expect(next.body.events).toHaveLength(1);
      expect(BigInt(next.body.events[0].seq)).toBe(BigInt(first.body.nextCursor) + 1n);
      expect(old.body).toEqual(next.body);
    });
  });

  describe('every renamed input is marked deprecated where clients read schemas', () => {
    let openapi: Json;
    let tools: Json[];
    beforeAll(async () => {
      openapi = (await t.api.get('/openapi.json')).body;
      const res = await t.api
        .post('/mcp')
        .set('Accept', 'application/json, text/event-stream')
        .set('X-MCP-Toolsets', 'all')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
      const body = String(res.headers['content-type']).startsWith('text/event-stream')
        ? JSON.parse(
            res.text
              .split('\n')
              .find((l) => l.startsWith('data:'))!
              .slice(5),
          )
        : res.body;
      tools = body.result.tools;
    });
    const resolve = (node: Json): Json => {
      const ref = node?.$ref as string | undefined;
      return ref
        ? resolve(
            ref
              .split('/')
              .slice(1)
              .reduce((n: Json, k) => n[k], openapi),
          )
        : node;
    };

    test.each(RENAMED_INPUTS)('$method: $alias is deprecated beside $use in OpenAPI, MCP tools/list and schemas/', (r) => {
      const op = openapi.paths[r.path][r.verb];
      let props: Json;
      if (r.verb === 'get') {
        const params = Object.fromEntries((op.parameters as Json[]).map((p) => [p.name, p]));
        expect(params[r.alias]).toMatchObject({ deprecated: true });
        expect(params[r.use]?.deprecated).toBeUndefined();
      } else {
        props = resolve(op.requestBody.content['application/json'].schema).properties;
        if ('item' in r) props = resolve(resolve(props[r.item]).items).properties;
        expect(resolve(props[r.alias])).toMatchObject({ deprecated: true });
        expect(resolve(props[r.use]).deprecated).toBeUndefined();
      }
      const tool = tools.find((x) => x.name === r.method)!;
      let mcpProps = tool.inputSchema.properties;
      if ('item' in r) mcpProps = mcpProps[r.item].items.properties;
      expect(mcpProps[r.alias]).toMatchObject({ deprecated: true });
      expect(mcpProps[r.use].deprecated).toBeUndefined();
      const file = JSON.parse(readFileSync(join(__dirname, '../../schemas', `${r.method}.input.json`), 'utf8'));
      let fileProps = file.properties;
      if ('item' in r) fileProps = fileProps[r.item].items.properties;
      expect(fileProps[r.alias]).toMatchObject({ deprecated: true });
    });
  });
});
