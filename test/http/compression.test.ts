import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { ensureWebBuilt, WEB_DIST, WEB_MANIFEST } from '../support/web-build';
import { seedMarket } from '../support/markets';

/** The raw answer, bytes as they crossed the wire (fetch and supertest would decode them). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('the web app served compressed (built by vite with .br and .gz copies)', () => {
  let t: TestApp;
  let entry: string;
  let original: Buffer;
  beforeAll(async () => {
    await ensureWebBuilt();
    const manifest = JSON.parse(fs.readFileSync(WEB_MANIFEST, 'utf8')) as Record<string, { file: string; isEntry?: boolean }>;
    entry = Object.values(manifest).find((c) => c.isEntry)!.file;
    original = fs.readFileSync(path.join(WEB_DIST, entry));
    t = await startTestApp(backends()[0]!, { background: false, webDir: WEB_DIST, listen: true });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  test('when the app is built, then every hashed JavaScript and CSS file has a smaller brotli and gzip copy beside it', () => {
    const assets = fs.readdirSync(path.join(WEB_DIST, 'assets')).filter((n) => /\.(js|css)$/.test(n));
    expect(assets.length).toBeGreaterThan(3);
    for (const name of assets) {
      const size = fs.statSync(path.join(WEB_DIST, 'assets', name)).size;
      if (size < 200) continue; // too small to gain
      expect(fs.statSync(path.join(WEB_DIST, 'assets', `${name}.br`)).size).toBeLessThan(size);
      expect(fs.statSync(path.join(WEB_DIST, 'assets', `${name}.gz`)).size).toBeLessThan(size);
    }
  });

  test('when a browser accepts brotli, then the hashed entry script comes brotli-encoded, immutable for a year, and decodes to the file', async () => {
    const res = await rawGet(`${t.baseUrl}/${entry}`, { 'Accept-Encoding': 'gzip, deflate, br, zstd' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(res.headers['vary']).toMatch(/Accept-Encoding/i);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(Number(res.headers['content-length'])).toBe(res.body.length);
    expect(res.body.length).toBeLessThan(original.length / 2);
    expect(brotliDecompressSync(res.body).equals(original)).toBe(true);
  });

  test('when a client accepts only gzip, then the script comes gzip-encoded and decodes to the file', async () => {
    const res = await rawGet(`${t.baseUrl}/${entry}`, { 'Accept-Encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['vary']).toMatch(/Accept-Encoding/i);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(gunzipSync(res.body).equals(original)).toBe(true);
  });

  test('when a client accepts no compression (none named, identity, or br;q=0), then the script comes as the file itself', async () => {
    const asked: Record<string, string>[] = [{}, { 'Accept-Encoding': 'identity' }, { 'Accept-Encoding': 'br;q=0, deflate' }];
    for (const headers of asked) {
      const res = await rawGet(`${t.baseUrl}/${entry}`, headers);
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers['vary']).toMatch(/Accept-Encoding/i);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.body.equals(original)).toBe(true);
    }
  });

  test('when a page of the app is opened, then its HTML is revalidated on every visit, never cached as immutable', async () => {
    const res = await rawGet(`${t.baseUrl}/portfolio`, { 'Accept-Encoding': 'br', Accept: 'text/html' });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  test('when a compressed copy or a path outside the assets is asked for by name, then nothing is served from it', async () => {
    expect((await rawGet(`${t.baseUrl}/${entry}.br`, {})).status).toBe(404);
    expect((await rawGet(`${t.baseUrl}/assets/..%2Findex.html`, { 'Accept-Encoding': 'br' })).status).toBe(404);
    expect((await rawGet(`${t.baseUrl}/assets/no-such-file-abc.js`, { 'Accept-Encoding': 'br' })).status).toBe(404);
  });

  test('when a browser opens pages of every kind, then their HTML comes brotli or gzip encoded as it accepts, decodes to the page, and is the page itself without compression', async () => {
    // The home and a market page (first view) and an app-only page.
    const market = await seedMarket(t.services.db);
    const pages: Array<[string, number]> = [
      ['/', 200],
      [`/markets/${market.slug}`, 200],
      ['/portfolio', 200],
    ];
    for (const [page, status] of pages) {
      const plain = await rawGet(`${t.baseUrl}${page}`, { Accept: 'text/html' });
      expect([page, plain.status]).toEqual([page, status]);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(plain.body.toString('utf8')).toMatch(/^<!doctype html>/i);
      for (const [accept, encoding, decode] of [
        ['gzip, deflate, br, zstd', 'br', brotliDecompressSync],
        ['gzip', 'gzip', gunzipSync],
      ] as const) {
        const res = await rawGet(`${t.baseUrl}${page}`, { Accept: 'text/html', 'Accept-Encoding': accept });
        expect([page, res.status, res.headers['content-encoding']]).toEqual([page, status, encoding]);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.headers['vary']).toMatch(/Accept-Encoding/i);
        expect(Number(res.headers['content-length'])).toBe(res.body.length);
        // Pages drawn from a second's reads may differ between two loads; each decodes to a whole page, half the size or less.
        const text = decode(res.body).toString('utf8');
        expect(text).toMatch(/^<!doctype html>[\s\S]*<\/html>\s*$/i);
        expect(res.body.length).toBeLessThan(Buffer.byteLength(text) / 2);
      }
    }
    // A page under a kilobyte (the not-found page) gains nothing: it is sent as it is.
    for (const page of ['/community-markets/no-such-market', '/no-such-page']) {
      const small = await rawGet(`${t.baseUrl}${page}`, { Accept: 'text/html', 'Accept-Encoding': 'br, gzip' });
      expect([page, small.status, small.headers['content-encoding']]).toEqual([page, 404, undefined]);
      expect(small.body.length).toBeLessThan(1024);
      expect(small.body.toString('utf8')).toMatch(/^<!doctype html>/i);
    }
  });
});
