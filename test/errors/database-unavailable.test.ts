import { describeOnPostgres } from '../support/backends';
import { registerAgent } from '../support/app';
import { startProxiedApp, type ProxiedApp } from '../support/proxied-app';
import { isDatabaseUnavailable } from '../../src/errors/database-unavailable';
import { toAppError } from '../../src/errors/app-error';

describe('isDatabaseUnavailable', () => {
  const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

  test.each([
    ['a refused connection', coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a reset connection', coded('ECONNRESET', 'read ECONNRESET')],
    ['a dropped connection', new Error('Connection terminated unexpectedly')],
    ['a connect timeout', new Error('timeout exceeded when trying to connect')],
    ['a connection timeout', new Error('Connection terminated due to connection timeout')],
    ['a client-side query timeout', new Error('Query read timeout')],
    ['a statement timeout', coded('57014', 'canceling statement due to statement timeout')],
    ['too many clients', coded('53300', 'sorry, too many clients already')],
    ['an administrator shutdown', coded('57P01', 'terminating connection due to administrator command')],
    ['a crash shutdown', coded('57P02')],
    ['a server starting up', coded('57P03', 'the database system is starting up')],
    ['a connection exception', coded('08006')],
    ['a refused connect to several addresses', Object.assign(new AggregateError([coded('ECONNREFUSED')]), { code: 'ECONNREFUSED' })],
    ['a wrapped driver error', Object.assign(new Error('query failed'), { driverError: coded('57P01') })],
  ])('when the failure is %s, then it is the database being unavailable: 503 with Retry-After', (_label, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
    const app = toAppError(err);
    expect(app.status).toBe(503);
    expect(app.code).toBe('SERVICE_UNAVAILABLE');
    expect(Number(app.headers?.['Retry-After'])).toBeGreaterThan(0);
  });

  test.each([
    ['a unique violation', coded('23505', 'duplicate key value')],
    ['a syntax error', coded('42601', 'syntax error')],
    ['a plain bug', new TypeError('x is undefined')],
    ['a non-error', 'boom'],
  ])('when the failure is %s, then it is the request or the code, not the database: 500 INTERNAL', (_label, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
    expect(toAppError(err).code).toBe('INTERNAL');
  });
});

describeOnPostgres('an unreachable database on $name', (backend) => {
  let s: ProxiedApp;
  let key: string;
  beforeAll(async () => {
    s = await startProxiedApp(backend, {}, { background: false, listen: true });
    key = (await registerAgent(s.t)).apiKey;
  });
  afterAll(async () => s.close());

  test('when the database refuses connections, then REST, search, JSON-RPC and MCP answer SERVICE_UNAVAILABLE (503 with Retry-After), and serve again once it is back', async () => {
    await s.proxy.down();
    try {
      const balance = await s.t.api.get('/api/user/balance').set('Authorization', `Bearer ${key}`);
      expect(balance.status).toBe(503);
      expect(balance.body.code).toBe('SERVICE_UNAVAILABLE');
      expect(Number(balance.headers['retry-after'])).toBeGreaterThan(0);

      const search = await s.t.api.get('/api/search').query({ q: 'election' });
      expect(search.status).toBe(503);
      expect(search.body.code).toBe('SERVICE_UNAVAILABLE');
      expect(Number(search.headers['retry-after'])).toBeGreaterThan(0);

      const rpc = await s.t.api
        .post('/api/a2a')
        .set('Content-Type', 'application/json')
        .set('Authorization', `Bearer ${key}`)
        .send({ jsonrpc: '2.0', id: 1, method: 'get_balance' });
      expect(rpc.body.error).toMatchObject({ code: -32054, data: { code: 'SERVICE_UNAVAILABLE', httpStatus: 503 } });

      const mcp = await fetch(`${s.t.baseUrl}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_balance', arguments: {} } }),
      });
      const mcpBody = JSON.stringify(await mcp.text());
      expect(mcpBody).toContain('SERVICE_UNAVAILABLE');
      expect(mcpBody).not.toContain('INTERNAL');
    } finally {
      await s.proxy.up();
    }
    const back = await s.t.api.get('/api/user/balance').set('Authorization', `Bearer ${key}`);
    expect(back.status).toBe(200);
  });
});
