import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ERROR_TABLE } from '../../src/errors/app-error';
import { onSurface } from '../../src/registry/method';
import { BATCH_LIMIT } from '../../src/transports/jsonrpc';
import { createLogger } from '../../src/logger';
import { ControlledPrices, seedMarket } from '../support/markets';

const BAD_KEY = 'svc_00000000000000000000000000000000';

describe.each(backends())('JSON-RPC at POST /api/a2a on $name', (backend) => {
  let t: TestApp;
  let agent: { id: string; apiKey: string };
  const logLines: string[] = [];
  const prices = new ControlledPrices();

  beforeAll(async () => {
    t = await startTestApp(backend, { prices, log: createLogger('error', {}, (line) => logLines.push(line)) });
    agent = await registerAgent(t, 'RpcAgent');
  });
  afterAll(async () => t.close());

  const rpc = (body: unknown, key?: string) => {
    const r = t.api.post('/api/a2a').set('Content-Type', 'application/json');
    if (key) r.set('Authorization', `Bearer ${key}`);
    return r.send(body as object);
  };
  const call = (method: string, params?: unknown, id: number | string = 1) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
  const email = () => `rpc${Math.random().toString(36).slice(2)}@example.com`;

  test('when every jsonrpc-surface method of the registry is called, then none answers "method not found"', async () => {
    const offered = t.services.registry.methods.filter((m) => onSurface(m, 'jsonrpc'));
    expect(offered.map((m) => m.name)).toEqual(expect.arrayContaining(['get_balance', 'register_account', 'agent.getCard']));
    // In batches the transport takes (it holds at most BATCH_LIMIT calls; the registry has grown past one batch).
    const calls = offered.map((m, i) => call(m.name, {}, i));
    for (let i = 0; i < calls.length; i += BATCH_LIMIT) {
      const res = await rpc(calls.slice(i, i + BATCH_LIMIT));
      expect(res.status).toBe(200);
      for (const r of res.body) expect(r.error?.code).not.toBe(-32601);
    }
    const hidden = t.services.registry.methods.filter((m) => !onSurface(m, 'jsonrpc'));
    for (const m of hidden) expect((await rpc(call(m.name, {}))).body.error.code).toBe(-32601);
  });

  test('when get_balance is called with a key, then the result is the REST body', async () => {
    const rest = await t.api.get('/api/user/balance').set('Authorization', `Bearer ${agent.apiKey}`);
    const res = await rpc(call('get_balance', {}, 'b-1'), agent.apiKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 'b-1', result: rest.body });
    expect(res.body.result).toEqual({ balance: 1000, reserved: 0, available: 1000 });
  });

  test('when params are absent, then the method runs with an empty input', async () => {
    const res = await rpc({ jsonrpc: '2.0', id: 7, method: 'get_balance' }, agent.apiKey);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 7, result: { balance: 1000, reserved: 0, available: 1000 } });
  });

  test('when agent.getCard is called without credentials, then the result is the GET /api/a2a card', async () => {
    const rest = await t.api.get('/api/a2a');
    expect(rest.status).toBe(200);
    const res = await rpc(call('agent.getCard'));
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual(rest.body);
  });

  describe('unparseable bodies', () => {
    test.each([
      ['truncated JSON', 'application/json', '{"jsonrpc": "2.0", "method": '],
      ['trailing garbage', 'application/json', '{"jsonrpc": "2.0", "method": "get_balance"} x'],
      ['JSON sent as text/plain', 'text/plain', '{bad json'],
      ['no content type', '', 'not json at all'],
    ])('when the body is %s, then HTTP 400 with -32700 and id null', async (_label, type, body) => {
      const r = t.api.post('/api/a2a');
      if (type) r.set('Content-Type', type);
      const res = await r.send(body);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
      expect(res.body.error.message).toMatch(/Parse error/);
    });

    test('when the body is empty, then HTTP 400 with a JSON-RPC error', async () => {
      const res = await t.api.post('/api/a2a').set('Content-Type', 'application/json');
      expect(res.status).toBe(400);
      expect(res.body.jsonrpc).toBe('2.0');
      expect([-32700, -32600]).toContain(res.body.error.code);
    });

    test('when the body is over 100 kB, then HTTP 413 with -32600 and code PAYLOAD_TOO_LARGE', async () => {
      const res = await rpc(call('register_account', { email: email(), password: 'x'.repeat(110_000), displayName: 'Big' }));
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, data: { code: 'PAYLOAD_TOO_LARGE', httpStatus: 413 } } });
    });
  });

  describe('bad envelopes', () => {
    test.each([
      ['a string', 'just a string', null],
      ['a number', 42, null],
      ['null', null, null],
      ['no jsonrpc member', { id: 1, method: 'get_balance' }, 1],
      ['jsonrpc 1.0', { jsonrpc: '1.0', id: 2, method: 'get_balance' }, 2],
      ['a numeric method', { jsonrpc: '2.0', id: 3, method: 5 }, 3],
      ['an empty method', { jsonrpc: '2.0', id: 4, method: '' }, 4],
      ['an object id', { jsonrpc: '2.0', id: { a: 1 }, method: 'get_balance' }, null],
      ['string params', { jsonrpc: '2.0', id: 5, method: 'get_balance', params: 'x' }, 5],
      ['null params', { jsonrpc: '2.0', id: 6, method: 'get_balance', params: null }, 6],
      ['a result member', { jsonrpc: '2.0', id: 8, method: 'get_balance', result: 1 }, 8],
    ])('when the request is %s, then HTTP 400 with -32600', async (_label, body, id) => {
      const res = await t.api.post('/api/a2a').set('Content-Type', 'application/json').send(JSON.stringify(body));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32600, data: { code: 'VALIDATION_ERROR' } } });
      expect(res.body.error.message).toMatch(/^Invalid Request: /);
    });
  });

  test('when the method does not exist, then -32601 with the id and a hint to the agent card', async () => {
    const res = await rpc(call('no_such_method', {}, 'x'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 'x', error: { code: -32601, message: 'Method not found: no_such_method.' } });
    expect(res.body.error.data.hint).toContain('/.well-known/agent-card.json');
  });

  test('when params are invalid, then -32602 with the zod issues in data and nothing is stored', async () => {
    const res = await rpc(call('register_account', { email: 'not-an-email', password: 'short', displayName: 'Ok' }));
    expect(res.status).toBe(200);
    expect(res.body.error.code).toBe(-32602);
    expect(res.body.error.data).toMatchObject({ code: 'VALIDATION_ERROR', httpStatus: 400 });
    const paths = (res.body.error.data.details as Array<{ path: string; message: string }>).map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['email', 'password']));
    const rows = await t.services.db.query('SELECT 1 FROM users WHERE email = $1', ['not-an-email']);
    expect(rows).toHaveLength(0);
  });

  test('when params are positional, then -32602 saying to send named params', async () => {
    const res = await rpc(call('get_balance', [], 9), agent.apiKey);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 9, error: { code: -32602 } });
    expect(res.body.error.message).toMatch(/Positional params are not supported/);
  });

  test('when an application error happens, then its rpc code, message and {code, hint, docs, httpStatus} are answered', async () => {
    const params = { email: email(), password: 'password123', displayName: 'Twice' };
    expect((await rpc(call('register_account', params))).body.result.success).toBe(true);
    const res = await rpc(call('register_account', { ...params, email: params.email.toUpperCase() }, 2));
    expect(res.status).toBe(200);
    expect(res.body.error.code).toBe(ERROR_TABLE.EMAIL_TAKEN.rpc);
    expect(typeof res.body.error.message).toBe('string');
    expect(res.body.error.data).toMatchObject({ code: 'EMAIL_TAKEN', httpStatus: 400 });
    expect(res.body.error.data.docs).toMatch(/^http/);
  });

  test('when registration runs over JSON-RPC with isAgent, then the key is in the result and works', async () => {
    const res = await rpc(call('register_account', { email: email(), password: 'password123', displayName: 'RpcBorn', isAgent: true }));
    expect(res.status).toBe(200);
    const key: string = res.body.result.user.apiKey;
    expect(key).toMatch(/^svc_[0-9a-f]{32}$/);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect((await rpc(call('get_balance'), key)).body.result).toEqual({ balance: 1000, reserved: 0, available: 1000 });
  });

  describe('authentication', () => {
    test('when a keyed method is called without a key, then HTTP 401 with WWW-Authenticate and UNAUTHORIZED', async () => {
      const res = await rpc(call('get_balance', {}, 11));
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
      expect(res.body).toMatchObject({
        jsonrpc: '2.0',
        id: 11,
        error: { code: ERROR_TABLE.UNAUTHORIZED.rpc, data: { code: 'UNAUTHORIZED', httpStatus: 401 } },
      });
      expect(res.body.error.data.hint).toMatch(/Bearer/);
    });

    test('when a keyed method is called with a bad key, then HTTP 401 with an invalid_token challenge', async () => {
      const res = await rpc(call('get_balance', {}, 12), BAD_KEY);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/invalid_token/);
      expect(res.body.error.data.code).toBe('UNAUTHORIZED');
    });

    test('when the key is put in params, then the call is refused and the key is not used', async () => {
      const res = await rpc(call('get_balance', { apiKey: agent.apiKey }, 13));
      expect(res.status).toBe(401);
      expect(res.body.error.data.code).toBe('UNAUTHORIZED');
      expect(res.body.error.message).toMatch(/Authorization header/);
    });

    test('when a public method is called with no key, then it answers 200', async () => {
      expect((await rpc(call('agent.getCard'))).status).toBe(200);
    });
  });

  describe('batches', () => {
    test('when a batch mixes a failing keyed call and a public call, then each gets its own answer in order and HTTP stays 200', async () => {
      const res = await rpc([call('get_balance', {}, 1), call('agent.getCard', {}, 2), call('nope', {}, 3)]);
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(3);
      expect(res.body[0]).toMatchObject({ id: 1, error: { code: ERROR_TABLE.UNAUTHORIZED.rpc, data: { code: 'UNAUTHORIZED' } } });
      expect(res.body[1].id).toBe(2);
      expect(res.body[1].result.name).toEqual(expect.any(String));
      expect(res.body[2]).toMatchObject({ id: 3, error: { code: -32601 } });
    });

    test('when a batch has one element, then the answer is still an array', async () => {
      const res = await rpc([call('get_balance', {}, 'only')], agent.apiKey);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([{ jsonrpc: '2.0', id: 'only', result: { balance: 1000, reserved: 0, available: 1000 } }]);
    });

    test('when the batch is empty, then HTTP 400 and one -32600 error object (not an array)', async () => {
      const res = await rpc([]);
      expect(res.status).toBe(400);
      expect(Array.isArray(res.body)).toBe(false);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    });

    test('when a batch element is malformed, then that element gets -32600 and the others run', async () => {
      const res = await rpc([1, { jsonrpc: '2.0', method: 'get_balance', id: 'bad', params: 'x' }, call('get_balance', {}, 'ok')], agent.apiKey);
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(3);
      expect(res.body[0]).toMatchObject({ id: null, error: { code: -32600 } });
      expect(res.body[1]).toMatchObject({ id: 'bad', error: { code: -32600 } });
      expect(res.body[2]).toEqual({ jsonrpc: '2.0', id: 'ok', result: { balance: 1000, reserved: 0, available: 1000 } });
    });

    test(`when a batch holds more than ${BATCH_LIMIT} calls, then HTTP 400 and -32600 naming the cap, and nothing runs`, async () => {
      const before = await t.services.db.query<{ n: bigint }>('SELECT count(*) AS n FROM users');
      const calls = Array.from({ length: BATCH_LIMIT + 1 }, (_, i) =>
        call('register_account', { email: email(), password: 'password123', displayName: `Cap${i}` }, i),
      );
      const res = await rpc(calls);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(-32600);
      expect(res.body.error.message).toContain(String(BATCH_LIMIT));
      const after = await t.services.db.query<{ n: bigint }>('SELECT count(*) AS n FROM users');
      expect(after[0]!.n).toBe(before[0]!.n);
    });

    test('when a batch holds exactly the cap, then every call is answered', async () => {
      const res = await rpc(
        Array.from({ length: BATCH_LIMIT }, (_, i) => call('get_balance', {}, i)),
        agent.apiKey,
      );
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(BATCH_LIMIT);
    });

    test('when a batch holds only notifications, then HTTP 204 with no body, and the notifications ran', async () => {
      const a = email();
      const b = email();
      const res = await rpc([
        { jsonrpc: '2.0', method: 'register_account', params: { email: a, password: 'password123', displayName: 'NoteA' } },
        { jsonrpc: '2.0', method: 'register_account', params: { email: b, password: 'password123', displayName: 'NoteB' } },
        { jsonrpc: '2.0', method: 'no_such_method' },
      ]);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      const rows = await t.services.db.query('SELECT 1 FROM users WHERE email IN ($1, $2)', [a, b]);
      expect(rows).toHaveLength(2);
    });

    test('when a single notification is sent, then HTTP 204 with no body', async () => {
      const res = await rpc({ jsonrpc: '2.0', method: 'get_balance' });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
    });

    test('when a batch mixes notifications and calls, then only the calls are answered', async () => {
      const res = await rpc([{ jsonrpc: '2.0', method: 'agent.getCard' }, call('get_balance', {}, 'c')], agent.apiKey);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([{ jsonrpc: '2.0', id: 'c', result: { balance: 1000, reserved: 0, available: 1000 } }]);
    });
  });

  describe('idempotency', () => {
    const trade = async () => {
      const m = await seedMarket(t.services.db);
      prices.set(m.yes, 0.5, 0.5);
      return { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 10 };
    };
    const trades = async (userId: string) =>
      Number((await t.services.db.query<{ n: bigint }>('SELECT count(*) AS n FROM trades WHERE user_id = $1', [userId]))[0]!.n);

    test('when paper_trade is retried with the same idempotencyKey param, then the first result replays and one trade exists', async () => {
      const a = await registerAgent(t, 'IdemParam');
      const order = await trade();
      const first = await rpc(call('paper_trade', { ...order, idempotencyKey: 'rpc-idem-1' }), a.apiKey);
      const second = await rpc(call('paper_trade', { ...order, idempotencyKey: 'rpc-idem-1' }), a.apiKey);
      expect(first.body.result.success).toBe(true);
      expect(second.body.result).toEqual(first.body.result);
      expect(await trades(a.id)).toBe(1);
    });

    test('when a single call carries the Idempotency-Key header, then a retry replays', async () => {
      const a = await registerAgent(t, 'IdemHeader');
      const order = await trade();
      const first = await rpc(call('paper_trade', order), a.apiKey).set('Idempotency-Key', 'rpc-header-1');
      const second = await rpc(call('paper_trade', order), a.apiKey).set('Idempotency-Key', 'rpc-header-1');
      expect(second.body.result).toEqual(first.body.result);
      expect(await trades(a.id)).toBe(1);
    });

    test('when a batch is sent with an Idempotency-Key header, then the header does not make its calls replay each other', async () => {
      const a = await registerAgent(t, 'IdemBatch');
      const order = await trade();
      const res = await rpc([call('paper_trade', order, 1), call('paper_trade', order, 2)], a.apiKey).set('Idempotency-Key', 'rpc-batch-1');
      expect(res.body.map((r: { result?: { success: boolean } }) => r.result?.success)).toEqual([true, true]);
      expect(res.body[0].result.positionId).toBe(res.body[1].result.positionId);
      expect(await trades(a.id)).toBe(2);
    });

    test('when idempotencyKey is not a string, then -32602 and nothing is traded', async () => {
      const a = await registerAgent(t, 'IdemBad');
      const res = await rpc(call('paper_trade', { ...(await trade()), idempotencyKey: 42 }), a.apiKey);
      expect(res.body.error).toMatchObject({ code: -32602, data: { code: 'VALIDATION_ERROR' } });
      expect(res.body.error.message).toMatch(/idempotencyKey/);
      expect(await trades(a.id)).toBe(0);
    });
  });

  test('when another verb than GET or POST is used on /api/a2a, then 405 naming both', async () => {
    const res = await t.api.delete('/api/a2a');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, POST');
    expect(res.body.code).toBe('METHOD_NOT_ALLOWED');
  });

  test('when the database fails under a call, then INTERNAL with the request id and no internals, and the log line has both', async () => {
    // get_balance reads the account's cash row (the key itself is cached, so the users table may not be read at all).
    await t.services.db.query('ALTER TABLE cash_balances RENAME TO cash_balances_gone');
    let res;
    try {
      res = await rpc(call('get_balance', {}, 'boom'), agent.apiKey).set('X-Request-Id', 'rpc-internal-0001');
    } finally {
      await t.services.db.query('ALTER TABLE cash_balances_gone RENAME TO cash_balances');
    }
    expect(res.status).toBe(200);
    expect(res.body.error).toMatchObject({ code: -32603, data: { code: 'INTERNAL', httpStatus: 500, requestId: 'rpc-internal-0001' } });
    const text = JSON.stringify(res.body);
    expect(text).not.toMatch(/cash_balances|users|relation|SELECT|stack|at /i);
    const line = logLines.find((l) => l.includes('rpc-internal-0001'));
    expect(line).toBeDefined();
    expect(line).toMatch(/cash_balances/);
  });
});

describe.each(backends())('JSON-RPC rate limits on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { config: { RATE_LIMIT_API_PER_MIN: 3 } });
  });
  afterAll(async () => t.close());

  test('when a batch holds more calls than the limit, then each call counts and the extra ones get RATE_LIMITED', async () => {
    const calls = Array.from({ length: 5 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'agent.getCard' }));
    const res = await t.api.post('/api/a2a').send(calls);
    expect(res.status).toBe(200);
    expect(res.body.filter((r: { result?: unknown }) => r.result)).toHaveLength(3);
    const limited = res.body.filter((r: { error?: { data?: { code?: string } } }) => r.error?.data?.code === 'RATE_LIMITED');
    expect(limited).toHaveLength(2);
    expect(limited[0].error.code).toBe(ERROR_TABLE.RATE_LIMITED.rpc);
  });

  test('when a single call is over the limit, then HTTP 429 with Retry-After', async () => {
    const res = await t.api.post('/api/a2a').send({ jsonrpc: '2.0', id: 1, method: 'agent.getCard' });
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.body.error.data.code).toBe('RATE_LIMITED');
  });
});
