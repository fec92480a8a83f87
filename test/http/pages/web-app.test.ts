import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { backends } from '../../support/backends';
import { startTestApp, type TestApp } from '../../support/app';
import { APP_ONLY_PAGES } from '../../../src/http/pages/web-app-pages';
import { PATHS } from '../../../web/src/lib/paths';

/** A stand-in for dist/web: the shell as vite writes it (root marker, one hashed script) and that asset. */
function fakeBuild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'web-shell-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html>\n<html lang="en">\n<head>\n<title>App</title>\n<script type="module" crossorigin src="/assets/index-abc123.js"></script>\n<link rel="modulepreload" crossorigin href="/assets/shared-s1.js">\n</head>\n<body>\n<div id="root"><!--server-rendered--></div>\n</body>\n</html>\n',
  );
  fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), 'console.log("app")');
  fs.writeFileSync(path.join(dir, 'assets', 'shared-s1.js.br'), brotliCompressSync('export const shared = 1;'));
  // vite's manifest: the entry loads a shared chunk; the chart module needs it, the entry and its own line-chart chunk.
  fs.mkdirSync(path.join(dir, '.vite'));
  fs.writeFileSync(
    path.join(dir, '.vite', 'manifest.json'),
    JSON.stringify({
      'index.html': { file: 'assets/index-abc123.js', isEntry: true, imports: ['_shared-s1.js'], dynamicImports: ['src/components/price-chart.tsx'] },
      '_shared-s1.js': { file: 'assets/shared-s1.js' },
      'src/components/price-chart.tsx': { file: 'assets/price-chart-p1.js', imports: ['_shared-s1.js', 'index.html', '_line-chart-l1.js'] },
      '_line-chart-l1.js': { file: 'assets/line-chart-l1.js', imports: ['_shared-s1.js'] },
      'src/features/auth/sign-in-page.tsx': { file: 'assets/sign-in-page-a1.js', isDynamicEntry: true, imports: ['_shared-s1.js', 'index.html'] },
      'src/boot.ts': { file: 'assets/boot-b1.js', isEntry: true },
    }),
  );
  return dir;
}

/** fakeBuild with a first-view renderer as vite.ssr.config.mts builds it: `body` is the module's source. */
function fakeBuildWithViews(body: string): string {
  const dir = fakeBuild();
  fs.mkdirSync(path.join(dir, 'ssr'));
  fs.writeFileSync(path.join(dir, 'ssr', 'entry-server.js'), body);
  return dir;
}

/** The market every app of this file serves: a question with markup in it, and both sides' books. */
async function seedMarket(s: TestApp, slug: string): Promise<void> {
  await s.services.db.query(
    `INSERT INTO markets (id, slug, question, description, category, volume, end_date, status, source)
     VALUES ('shell-1', $1, 'Will <b>the shell</b> hold?', 'Resolves YES if it holds.', 'Tech', 10, now() + interval '30 days', 'active', 'simulated')`,
    [slug],
  );
  await s.services.db.query(
    `INSERT INTO market_tokens (token_id, market_id, outcome, label, price_micro, bid_micro, ask_micro, price_at)
     VALUES ('shell-1-yes', 'shell-1', 'YES', 'Yes', 400000, 395000, 405000, now()), ('shell-1-no', 'shell-1', 'NO', 'No', 600000, 595000, 605000, now())`,
  );
}

describe.each(backends())('the web app served by the service on $name', (backend) => {
  let t: TestApp;
  let plain: TestApp;
  let dir: string;
  const slug = 'will-the-shell-hold-test';
  beforeAll(async () => {
    dir = fakeBuild();
    t = await startTestApp(backend, { background: false, webDir: dir });
    plain = await startTestApp(backend, { background: false, webDir: null });
    for (const s of [t, plain]) await seedMarket(s, slug);
  });
  afterAll(async () => {
    await t?.close();
    await plain?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe("with the app's first-view renderer built", () => {
    let viewed: TestApp;
    let failing: TestApp;
    const dirs: string[] = [];
    beforeAll(async () => {
      // The view names the address and the reads it was given, so the test sees what the renderer received.
      dirs.push(fakeBuildWithViews('exports.renderFirstView = (url, reads) => `<h1>View of ${url}</h1><p>${reads.map((r) => r.href).join(" ")}</p>`;'));
      dirs.push(fakeBuildWithViews('exports.renderFirstView = () => { throw new Error("no view"); };'));
      viewed = await startTestApp(backend, { background: false, webDir: dirs[0] });
      failing = await startTestApp(backend, { background: false, webDir: dirs[1] });
      for (const s of [viewed, failing]) await seedMarket(s, slug);
    });
    afterAll(async () => {
      await viewed?.close();
      await failing?.close();
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    });
    const readsOf = (html: string) =>
      JSON.parse(/<script type="application\/json" id="first-reads">([^<]*)<\/script>/.exec(html)![1]!) as Array<{ href: string; body: unknown; at: number }>;

    test("when a market page is opened, then the root holds the app's first view, the server's page folded after it, and the page carries the reads the view was drawn from, escaped", async () => {
      const before = Date.now();
      const html = (await viewed.api.get(`/markets/${slug}?from=list`).set('Accept', 'text/html')).text;
      const history = '/api/price-history?tokenId=shell-1-yes&interval=1w';
      expect(html).toContain(`<div id="root"><h1>View of /markets/${slug}?from=list</h1><p>/api/markets/${slug} ${history}</p>`);
      expect(html).toMatch(
        /<details class="server-page"><summary>This page as a document \(for agents\)<\/summary>\n<h1>Will &lt;b&gt;the shell&lt;\/b&gt; hold\?<\/h1>/,
      );
      const reads = readsOf(html);
      // Each read is the API's own answer to the request the app sends.
      expect(reads.map((r) => r.href)).toEqual([`/api/markets/${slug}`, history]);
      // (The prices' age is in whole seconds: it may have ticked between the two reads.)
      const market = (await viewed.api.get(`/api/markets/${slug}`)).body as { odds: Record<string, unknown> };
      expect(reads[0]!.body).toEqual({ ...market, odds: { ...market.odds, ageSeconds: expect.any(Number) } });
      expect(reads[1]!.body).toEqual((await viewed.api.get(history)).body);
      expect(reads[0]!.at).toBeGreaterThanOrEqual(before - 1000);
      // No text in the data block can close it: the question's markup is escaped.
      const block = html.slice(html.indexOf('id="first-reads"'));
      expect(block).toContain('Will \\u003cb>the shell\\u003c/b> hold?');
      expect(block.slice(0, block.indexOf('</script>'))).not.toContain('<b>');
      // What the page carries is not fetched again; nothing of the app is fetched before the view is painted: the boot
      // script then fetches the entry and the chart's modules at once, and starts the entry.
      const head = html.slice(0, html.indexOf('</head>'));
      expect(head).not.toContain('rel="preload"');
      expect(head).not.toContain('modulepreload');
      expect(head).not.toContain('<script type="module" crossorigin src="/assets/index-abc123.js">');
      expect(head).toContain(
        '<script type="module" crossorigin src="/assets/boot-b1.js" data-entry="/assets/index-abc123.js" data-modules="/assets/shared-s1.js /assets/price-chart-p1.js /assets/line-chart-l1.js"></script>',
      );
    });

    test("when the home page is opened in a browser, then its first view is drawn from the most traded markets, as the app's first read asks for them", async () => {
      const html = (await viewed.api.get('/').set('Accept', 'text/html')).text;
      const href = '/api/markets?status=active&sort=volume&limit=20&sparkline=true';
      expect(html).toContain(`<div id="root"><h1>View of /</h1><p>${href}</p>`);
      const [read] = readsOf(html);
      expect((read!.body as { markets: Array<{ id: string }> }).markets.map((m) => m.id)).toEqual(
        ((await viewed.api.get(href)).body as { markets: Array<{ id: string }> }).markets.map((m) => m.id),
      );
      expect(html).not.toContain('rel="preload"');
      // Markdown is the landing page, as ever.
      expect((await viewed.api.get('/').set('Accept', 'text/markdown')).text).toMatch(/^# Prediction-market paper trading/);
    });

    test("when a page is asked for with a credential, then its first reads are made without it: the public answers every visitor shares, never a replay run's", async () => {
      // A run's key would scope the reads to its run's venue (runScoped asks the runs who a call's credentials name).
      const scopeOf = jest.spyOn(viewed.services.runs!, 'scopeOf');
      try {
        const html = (
          await viewed.api
            .get('/markets/shell-1')
            .set('Accept', 'text/html')
            .set('Authorization', `Bearer svc_${'0'.repeat(32)}`)
        ).text;
        expect(readsOf(html).map((r) => r.href)).toEqual(['/api/markets/shell-1', '/api/price-history?tokenId=shell-1-yes&interval=1w']);
        const asked = scopeOf.mock.calls.map(([call]) => call.credentials);
        expect(asked.length).toBeGreaterThanOrEqual(2);
        expect(asked.filter((c) => c.bearer !== undefined)).toEqual([]);
      } finally {
        scopeOf.mockRestore();
      }
    });

    test('when the renderer fails, then the page is the shell around the server page, which starts the reads with the HTML', async () => {
      const html = (await failing.api.get(`/markets/${slug}`).set('Accept', 'text/html')).text;
      expect(html).toMatch(/<div id="root"><main>\n<h1>Will &lt;b&gt;the shell&lt;\/b&gt; hold\?<\/h1>/);
      expect(html).not.toContain('first-reads');
      expect(html).toContain(`<link rel="preload" as="fetch" crossorigin href="/api/markets/${slug}" />`);
      // With no view to paint first, the entry starts as the HTML names it.
      expect(html).toContain('<script type="module" crossorigin src="/assets/index-abc123.js"></script>');
      expect(html).not.toContain('boot-b1.js');
    });
  });

  test('when a browser opens the home page, then it gets the app shell with the landing page inside the root element, revalidated on every visit', async () => {
    const res = await t.api.get('/').set('Accept', 'text/html');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.text).toContain('<script type="module" crossorigin src="/assets/index-abc123.js"></script>');
    expect(res.text).toMatch(/<div id="root"><main>\n<h1>Prediction-market paper trading<\/h1>[\s\S]*<\/main><\/div>/);
    expect(res.text).toContain('<title>Prediction-market paper trading</title>');
    expect(res.text).not.toContain('<!--server-rendered-->');
  });

  test('when markdown is asked for on the home page, then the answer is the same markdown as without the app', async () => {
    const withApp = await t.api.get('/').set('Accept', 'text/markdown');
    const without = await plain.api.get('/').set('Accept', 'text/markdown');
    expect(withApp.headers['content-type']).toMatch(/^text\/markdown/);
    expect(withApp.text.replace(t.baseUrl, '')).toBe(without.text.replace(plain.baseUrl, ''));
    expect(withApp.text).not.toContain('<script');
  });

  test('when a market page is opened in a browser, then the shell carries the question, odds and links, escaped; JSON and markdown are unchanged', async () => {
    const html = await t.api.get(`/markets/${slug}`).set('Accept', 'text/html');
    expect(html.text).toContain('/assets/index-abc123.js');
    expect(html.text).toContain('<title>Will &lt;b&gt;the shell&lt;/b&gt; hold? (simulated)</title>');
    expect(html.text).toContain('<h1>Will &lt;b&gt;the shell&lt;/b&gt; hold?</h1>');
    expect(html.text).toContain('bid 0.395, ask 0.405');
    expect(html.text).toContain(`href="${t.baseUrl}/api/markets/${slug}"`);
    const json = await t.api.get(`/markets/${slug}`).set('Accept', 'application/json');
    expect(json.body).toMatchObject({ slug, yesPrice: 0.4 });
    const md = await t.api.get(`/markets/${slug}`).set('Accept', 'text/markdown');
    expect(md.text).toMatch(/^# Will <b>the shell<\/b> hold\?\n/);
  });

  test("when a market page or the home page is opened, then the shell starts the app's first reads and the chart's modules with the HTML", async () => {
    const market = (await t.api.get(`/markets/${slug}`).set('Accept', 'text/html')).text;
    const head = market.slice(0, market.indexOf('</head>'));
    expect(head).toContain(`<link rel="preload" as="fetch" crossorigin href="/api/markets/${slug}" />`);
    expect(head).toContain('<link rel="preload" as="fetch" crossorigin href="/api/price-history?tokenId=shell-1-yes&amp;interval=1w" />');
    // vite's own preload of the entry's chunk, then the chart's chunks the entry does not load already: the chart module
    // and its line-chart chunk, not the shared one again.
    expect(head.match(/rel="modulepreload"[^>]*/g)).toEqual([
      'rel="modulepreload" crossorigin href="/assets/shared-s1.js"',
      'rel="modulepreload" crossorigin href="/assets/price-chart-p1.js" /',
      'rel="modulepreload" crossorigin href="/assets/line-chart-l1.js" /',
    ]);
    const home = (await t.api.get('/').set('Accept', 'text/html')).text;
    expect(home).toContain('<link rel="preload" as="fetch" crossorigin href="/api/markets?status=active&amp;sort=volume&amp;limit=20&amp;sparkline=true" />');
    expect(home.match(/rel="modulepreload"[^>]*/g)).toEqual(['rel="modulepreload" crossorigin href="/assets/shared-s1.js"']);
    // Agents' forms carry none of it.
    expect((await t.api.get(`/markets/${slug}`).set('Accept', 'text/markdown')).text).not.toContain('preload');
    expect((await plain.api.get(`/markets/${slug}`).set('Accept', 'text/html')).text).not.toContain('preload');
  });

  test('when the app is not built, then the pages are the plain server-rendered HTML', async () => {
    const res = await plain.api.get(`/markets/${slug}`).set('Accept', 'text/html');
    expect(res.text).toMatch(/^<!doctype html>/);
    expect(res.text).not.toContain('<script');
    expect(res.text).toContain('<h1>Will &lt;b&gt;the shell&lt;/b&gt; hold?</h1>');
    expect((await plain.api.get('/assets/index-abc123.js')).status).toBe(404);
  });

  test('when an app-only page is opened, then it is the shell with a short fallback page; other verbs are refused', async () => {
    for (const p of APP_ONLY_PAGES) {
      const res = await t.api.get(p.path).set('Accept', 'text/html');
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.text).toContain('/assets/index-abc123.js');
      expect(res.text).toContain(`<h1>${p.title}</h1>`);
      expect(res.text).toContain(`href="${t.baseUrl}/llms.txt"`);
    }
    expect((await t.api.post('/portfolio').send({})).status).toBe(405);
  });

  test("when an app-only page is opened, then the shell starts the page's own chunk with the HTML, not what the entry loads", async () => {
    const head = (await t.api.get('/signin').set('Accept', 'text/html')).text.split('</head>')[0]!;
    expect(head.match(/rel="modulepreload"[^>]*/g)).toEqual([
      'rel="modulepreload" crossorigin href="/assets/shared-s1.js"',
      'rel="modulepreload" crossorigin href="/assets/sign-in-page-a1.js" /',
    ]);
  });

  test("when the app's route table names a page, then the service serves the shell there", async () => {
    const served = APP_ONLY_PAGES.map((p) => p.path);
    const withServerContent = ['/', '/markets/:slug', '/community-markets/:slug'];
    for (const pattern of Object.values(PATHS)) {
      expect([...served, ...withServerContent]).toContain(pattern);
    }
  });

  test('when a hashed asset is fetched, then it is served with a year-long immutable cache; a missing one is a 404', async () => {
    const res = await t.api.get('/assets/index-abc123.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await t.api.get('/assets/index-zzz.js')).status).toBe(404);
  });

  test('when an encoded asset has been sent once, then it is sent from memory: the same bytes, 304 to its ETag, after its file is gone', async () => {
    const get = () => t.api.get('/assets/shared-s1.js').set('Accept-Encoding', 'br');
    const first = await get();
    expect(first.status).toBe(200);
    expect(first.headers['content-encoding']).toBe('br');
    expect(first.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(first.text).toBe('export const shared = 1;');
    fs.rmSync(path.join(dir, 'assets', 'shared-s1.js.br'));
    const again = await get();
    expect(again.status).toBe(200);
    expect(again.text).toBe('export const shared = 1;');
    expect((await get().set('If-None-Match', first.headers['etag']!)).status).toBe(304);
  });
});
