import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { RawHttpClient } from '../../bench/support/raw-http-load';
import { pacedLoad } from '../../bench/support/harness';

/** The benches' paced loader reads answers off raw sockets: it must frame them exactly, or its latencies mean nothing. */
describe('RawHttpClient', () => {
  let server: http.Server;
  let port: number;
  const seen: { method: string; url: string; body: string }[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, body });
        const u = new URL(req.url!, 'http://x');
        const size = Number(u.searchParams.get('size') ?? 10);
        const payload = 'x'.repeat(size);
        if (u.pathname === '/chunked') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          for (let i = 0; i < payload.length; i += 1000) res.write(payload.slice(i, i + 1000));
          res.end();
        } else if (u.pathname === '/empty') {
          res.writeHead(204).end();
        } else {
          res.writeHead(u.pathname === '/missing' ? 404 : 200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(payload) });
          res.end(payload);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('when answers of every size and framing come back on few sockets, then each is read whole and in order', async () => {
    const client = new RawHttpClient('127.0.0.1', port, 3);
    const sizes = [0, 1, 17, 4095, 65_536, 65_537, 300_000];
    const statuses = await Promise.all([
      ...sizes.map((size) => client.request({ path: `/fixed?size=${size}` })),
      ...sizes.map((size) => client.request({ path: `/chunked?size=${size}` })),
      client.request({ path: '/missing' }),
      client.request({ path: '/empty' }),
      client.request({ method: 'POST', path: '/post', headers: { 'content-type': 'application/json' }, body: '{"a":"é"}' }),
    ]);
    client.close();
    expect(statuses).toEqual([...sizes.map(() => 200), ...sizes.map(() => 200), 404, 204, 200]);
    expect(seen.find((s) => s.url === '/post')).toEqual({ method: 'POST', url: '/post', body: '{"a":"é"}' });
  });

  test('when ready, then all its sockets are open before any request is sent', async () => {
    let accepted = 0;
    const onConnection = () => (accepted += 1);
    server.on('connection', onConnection);
    const client = new RawHttpClient('127.0.0.1', port, 5);
    await client.ready();
    // The handshakes are done; the server's accept callbacks run on its next turns.
    await new Promise((r) => setTimeout(r, 20));
    server.off('connection', onConnection);
    client.close();
    expect(accepted).toBe(5);
  });

  test('when the server drops a keep-alive socket, then the client opens another and goes on', async () => {
    const client = new RawHttpClient('127.0.0.1', port, 1);
    expect(await client.request({ path: '/fixed' })).toBe(200);
    server.closeIdleConnections();
    await new Promise((r) => setTimeout(r, 50));
    expect(await client.request({ path: '/fixed' })).toBe(200);
    client.close();
  });

  test('when paced, then every request is sent and non-2xx answers are counted', async () => {
    let n = 0;
    const figures = await pacedLoad(`http://127.0.0.1:${port}`, {
      rate: 200,
      seconds: 0.5,
      connections: 4,
      setup: () => ({ path: n++ % 4 === 0 ? '/missing' : '/fixed?size=2000' }),
    });
    expect(figures.errors).toBe(0);
    expect(figures.rps * 0.5).toBe(100);
    expect(figures.non2xx).toBe(25);
  });
});
