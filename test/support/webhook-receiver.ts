import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: { type: string; seq: number; timestamp: string; data: Record<string, unknown> };
}

/** What the receiver does with one request: answer a status (at once or after a while), or never answer (a hung receiver). */
export type Answer = number | 'hang' | { status: number; afterMs: number };

/**
 * A webhook receiver for tests: an HTTP server on 127.0.0.1 that records every request and answers with what
 * `answer` says (200 unless told).
 */
export async function startReceiver(): Promise<{
  url: (path?: string) => string;
  port: number;
  received: Received[];
  answer: (fn: (r: Received, index: number) => Answer) => void;
  waitFor: (n: number, ms?: number) => Promise<void>;
  close: () => Promise<void>;
}> {
  const received: Received[] = [];
  let decide: (r: Received, index: number) => Answer = () => 200;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const r: Received = { path: req.url ?? '', headers: req.headers, body, json: JSON.parse(body) as Received['json'] };
      received.push(r);
      const a = decide(r, received.length - 1);
      if (a === 'hang') return;
      const reply = (status: number) => res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      if (typeof a === 'number') reply(a);
      else setTimeout(() => reply(a.status), a.afterMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    port,
    received,
    answer: (fn) => {
      decide = fn;
    },
    async waitFor(n, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (received.length < n) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${n} deliveries`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
