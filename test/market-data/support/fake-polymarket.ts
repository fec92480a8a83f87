import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';

const FIXTURES = path.join(__dirname, '..', '..', 'fixtures', 'polymarket');

/** A recorded upstream response (test/fixtures/polymarket/<name>.json), parsed fresh on every call. */
export function fixture<T = Record<string, unknown>>(name: string): T {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8')) as T;
}

type Fault =
  | { kind: 'status'; status: number }
  | { kind: 'hang' }
  | { kind: 'garbage' }
  /** Answers as usual, but only after `ms`. */
  | { kind: 'slow'; ms: number }
  /** Answers exactly this (HTML, truncated or wrongly shaped JSON, …). */
  | { kind: 'body'; status: number; contentType: string; body: string };

/**
 * A local stand-in for the Gamma and CLOB APIs (one server answers both), serving recorded responses
 * in their real shapes. Tests change what it serves, inject faults per path (500s, hangs, garbage) and
 * count the requests it saw.
 */
export class FakePolymarket {
  url = '';
  readonly requests: Array<{ path: string; query: Record<string, string> }> = [];
  /** Keyset pages in order; page i+1 is served for after_cursor = page i's next_cursor. */
  keysetPages: Array<{ markets: unknown[]; next_cursor?: string | null }> = [fixture('gamma-markets-keyset-page-1'), fixture('gamma-markets-keyset-page-2')];
  /** When false, /markets/keyset answers 404 (a deployment without it), and the legacy list serves. */
  keysetAvailable = true;
  legacy: unknown[] = fixture<unknown[]>('gamma-markets-legacy');
  readonly byId = new Map<string, unknown>();
  readonly books = new Map<string, unknown>();
  readonly prices = new Map<string, unknown>();
  readonly midpoints = new Map<string, unknown>();
  readonly histories = new Map<string, unknown>();
  private readonly faults = new Map<string, { fault: Fault; times: number; after: number }>();
  private readonly server = http.createServer((req, res) => this.handle(req, res));

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** After `after` good answers, the next `times` requests to `path` (`*`: any path without its own fault) get the fault (Infinity: until healed). */
  fail(pathname: string, fault: Fault, times = Infinity, after = 0): void {
    this.faults.set(pathname, { fault, times, after });
  }

  heal(pathname?: string): void {
    if (pathname) this.faults.delete(pathname);
    else this.faults.clear();
  }

  count(pathname: string): number {
    return this.requests.filter((r) => r.path === pathname).length;
  }

  /** Every market of the keyset fixtures by id, so /markets/{id} answers them. */
  indexFixtures(): void {
    for (const page of this.keysetPages) for (const m of page.markets as Array<{ id: string }>) this.byId.set(String(m.id), m);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams.entries());
    this.requests.push({ path: url.pathname, query });
    const f = this.faults.get(url.pathname) ?? this.faults.get('*');
    if (f && f.after > 0) f.after -= 1;
    else if (f && f.times > 0) {
      f.times -= 1;
      if (f.fault.kind === 'hang') return; // never answers: the client's timeout has to end it
      if (f.fault.kind === 'slow') {
        setTimeout(() => {
          if (!res.destroyed) this.answer(url.pathname, query, res);
        }, f.fault.ms).unref();
        return;
      }
      if (f.fault.kind === 'body') {
        res.writeHead(f.fault.status, { 'content-type': f.fault.contentType }).end(f.fault.body);
        return;
      }
      if (f.fault.kind === 'garbage') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"markets": [ {"id": "1"');
        return;
      }
      res.writeHead(f.fault.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'upstream trouble' }));
      return;
    }
    this.answer(url.pathname, query, res);
  }

  private answer(pathname: string, query: Record<string, string>, res: http.ServerResponse): void {
    const send = (body: unknown) => {
      if (body === undefined) res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not found' }));
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const p = pathname;
    if (p === '/markets/keyset') {
      if (!this.keysetAvailable) return send(undefined);
      const cursor = query.after_cursor;
      const index = cursor ? this.keysetPages.findIndex((pg) => pg.next_cursor === cursor) + 1 : 0;
      return send(index > 0 || !cursor ? (this.keysetPages[index] ?? { markets: [], next_cursor: null }) : { markets: [], next_cursor: null });
    }
    if (p === '/markets') {
      const offset = Number(query.offset ?? 0);
      const limit = Number(query.limit ?? 100);
      return send(this.legacy.slice(offset, offset + limit));
    }
    const byId = /^\/markets\/(\d+)$/.exec(p);
    if (byId) return send(this.byId.get(byId[1]!));
    const bySlug = /^\/markets\/slug\/(.+)$/.exec(p);
    if (bySlug) return send([...this.byId.values()].find((m) => (m as { slug: string }).slug === decodeURIComponent(bySlug[1]!)));
    if (p === '/book') return send(this.books.get(query.token_id ?? ''));
    if (p === '/price') return send(this.prices.get(`${query.token_id}:${query.side}`));
    if (p === '/midpoint') return send(this.midpoints.get(query.token_id ?? ''));
    if (p === '/prices-history') return send(this.histories.get(query.market ?? ''));
    send(undefined);
  }
}

/** A book fixture stamped now (the recorded timestamp is long stale). */
export function freshBook(name = 'clob-book', overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...fixture(name), timestamp: String(Date.now()), ...overrides };
}
