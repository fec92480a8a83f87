import http from 'node:http';
import { backends } from '../support/backends';
import { startTestApp, registerAgent, request, type TestApp } from '../support/app';
import { createLogger } from '../../src/logger';
import { startService } from '../../src/start';
import { serve } from '../../src/http/server';
import { testConfig } from '../../src/config';

describe.each(backends())('HTTP behaviour on $name', (backend) => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    // Debug level, so the per-request access log line is written too (and checked for secrets below).
    t = await startTestApp(backend, { log: createLogger('debug', {}, (l) => lines.push(l)), config: { LOG_LEVEL: 'debug' } });
  });
  afterAll(async () => t.close());

  test('GET /health answers ok and GET /ready reports the database and migrations', async () => {
    expect((await request(t.app).get('/health')).body).toEqual({ status: 'ok' });
    const ready = await request(t.app).get('/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
    expect(ready.body.checks).toMatchObject({ database: 'ok', migrations: 'applied' });
  });

  test('when a path under /api/ is unknown, then 404 ENDPOINT_NOT_FOUND naming method and path, with a hint and docs', async () => {
    const res = await t.api.get('/api/nope');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/json/);
    expect(res.body).toMatchObject({ error: 'No endpoint GET /api/nope', code: 'ENDPOINT_NOT_FOUND' });
    expect(res.body.hint).toContain('/openapi.json');
    expect(res.body.docs).toMatch(/^http/);
    const post = await t.api.post('/api/also/nope').send({});
    expect(post.body.error).toBe('No endpoint POST /api/also/nope');
  });

  test('when the method is wrong on a known path, then 405 JSON with Allow', async () => {
    const res = await request(t.app).delete('/api/trade');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toContain('POST');
    expect(res.body.code).toBe('METHOD_NOT_ALLOWED');
  });

  test('when the JSON body is malformed, then 400 VALIDATION_ERROR in JSON', async () => {
    const res = await request(t.app).post('/api/auth/register').set('content-type', 'application/json').send('{"email": ');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  test('when the body is over 100 kB, then 413 JSON', async () => {
    const res = await request(t.app)
      .post('/api/auth/register')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ email: 'x@example.com', password: 'password123', displayName: 'Big', agentDescription: 'x'.repeat(110_000) }));
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
  });

  test('when a handler fails unexpectedly, then 500 INTERNAL without internals, and X-Request-Id finds the log line', async () => {
    const a = await registerAgent(t);
    const original = t.services.accounts.cash.bind(t.services.accounts);
    t.services.accounts.cash = async () => {
      throw new Error('relation "secret_table" does not exist at SELECT * FROM users');
    };
    try {
      const res = await request(t.app).get('/api/user/balance').set('Authorization', `Bearer ${a.apiKey}`);
      expect(res.status).toBe(500);
      expect(res.body.code).toBe('INTERNAL');
      expect(JSON.stringify(res.body)).not.toMatch(/secret_table|SELECT|at .*\.ts/);
      const id = res.headers['x-request-id'];
      expect(id).toBeTruthy();
      expect(res.body.requestId).toBe(id);
      const line = lines.map((l) => JSON.parse(l)).find((l) => l.requestId === id && l.level === 'error');
      expect(line).toBeDefined();
      expect(JSON.stringify(line)).toContain('secret_table');
    } finally {
      t.services.accounts.cash = original;
    }
  });

  test('an API key never appears in a log line', async () => {
    const a = await registerAgent(t);
    await request(t.app).get('/api/user/balance').set('Authorization', `Bearer ${a.apiKey}`);
    await request(t.app).get(`/api/user/balance?apiKey=${a.apiKey}`);
    expect(lines.some((l) => l.includes('"msg":"request"') && l.includes('/api/user/balance'))).toBe(true);
    expect(lines.join('\n')).not.toContain(a.apiKey);
    expect(lines.join('\n')).not.toContain(a.apiKey.slice(4));
  });

  test('an unknown page outside /api/ answers JSON 404 too', async () => {
    const res = await request(t.app).get('/definitely-not-here');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  test('when a browser (Accept: text/html first) opens an unknown page, then it gets the not-found page, 404; under /api/ it still gets JSON', async () => {
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const res = await request(t.app).get('/definitely-not-here').set('Accept', browser);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<h1 id="not-found">Nothing here</h1>');
    const agent = await request(t.app).get('/definitely-not-here').set('Accept', '*/*');
    expect(agent.body.code).toBe('NOT_FOUND');
    const api = await request(t.app).get('/api/nope').set('Accept', browser);
    expect(api.status).toBe(404);
    expect(api.body.code).toBe('ENDPOINT_NOT_FOUND');
  });
});

describe('graceful shutdown', () => {
  test('when SIGTERM arrives mid-request, then the request finishes, new connections are refused and the database closes', async () => {
    const config = testConfig({ DATA_DIR: 'memory', PORT: 0, RATE_LIMIT_REGISTER_PER_MIN: 1000 });
    const log = createLogger('silent');
    const service = await startService(config, log);
    const serving = await serve(service, { ...config, PORT: 0 }, log);
    const port = (serving.server.address() as { port: number }).port;
    const body = JSON.stringify({ email: 'slow@example.com', password: 'password123', displayName: 'Slow', isAgent: true });
    // Shut down only once the server holds the request: a fixed delay raced the connection on a busy machine.
    const received = new Promise<void>((resolve) => serving.server.once('request', () => resolve()));
    const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        { port, host: '127.0.0.1', method: 'POST', path: '/api/auth/register', headers: { 'content-type': 'application/json' } },
        (res) => {
          let data = '';
          res.on('data', (c) => (data += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: data }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    await received;
    await new Promise((r) => setTimeout(r, 5)); // the request is now being hashed (scrypt)
    const stopped = serving.shutdown('test');
    const done = await inFlight;
    expect(done.status).toBe(201);
    await stopped;
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    expect(service.services.db.dataSource.isInitialized).toBe(false);
  });
});
