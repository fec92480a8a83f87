/**
 * `npm run bench:web`: how soon a person sees something, in headless Chromium (Debian's) against the built
 * service on the embedded database. For the home page, the time from navigation to the app's first markets
 * drawn; for a market page, to the app's price chart drawn (the first view's SVG line, or uPlot's canvas). Each of LOADS
 * loads (default 20) is a fresh browser context, so nothing is cached. The baseline, in the same command, is the same
 * page with its scripts blocked: the server-rendered HTML alone, to its first heading. Both are timed by the same
 * instrument (`drawnAt`): inside the page, from its navigation's start to the first frame that draws the element. Each
 * app load also counts the bytes the browser received (headers and bodies as they crossed the wire, compressed): all
 * of them, and its JavaScript. Last line: one JSON object.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Request } from 'playwright-core';
import { startServiceProcess } from './support/harness';
import { benchSetting } from './support/smoke';

const LOADS = benchSetting('BENCH_LOADS', 20, 1);
const QUIET_MS = 500;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

interface Figures {
  medianMs: number;
  p95Ms: number;
}

function figures(xs: number[]): Figures {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
  return { medianMs: Math.round(at(0.5)), p95Ms: Math.round(at(0.95)) };
}

interface Transfer {
  /** Every response's headers and body as received (encoded), until the page's load was over (QUIET_MS without a request in flight). */
  totalBytes: number;
  /** The same for scripts only. */
  jsBytes: number;
}

/**
 * The page's own clock at the first frame that draws an element matching `selector` (visible, or only attached),
 * from the start of its navigation. Installed before the document exists, it checks in each animation frame, which
 * runs only when the page renders, and forces the frame's style and layout there, so the time includes them; the
 * frame's paint follows at once. The bench used to poll from this process instead (every 5 ms, one evaluation in the
 * page each): once the app's first view was painted before its script ran (web/src/boot.ts), a poll that arrived as
 * the script began waited for the whole evaluation, so it timed the script, not what a person sees (bench/README.md).
 * `__firstPaintAt` is the first contentful paint (its presentation time); `__startedAt` is the first frame after the
 * app's first render has replaced the service's view (reported, no bar).
 */
function drawnAt(selector: string, state: 'attached' | 'visible'): string {
  return `window.__drawnAt = new Promise((resolve) => {
    const frame = () => {
      const el = document.querySelector(${JSON.stringify(selector)});
      const drawn = el && (${JSON.stringify(state)} === 'attached' || el.checkVisibility()) && el.getBoundingClientRect();
      if (drawn) resolve(performance.now());
      else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  window.__firstPaintAt = new Promise((resolve) => {
    new PerformanceObserver((list, observer) => {
      const fcp = list.getEntries().find((e) => e.name === 'first-contentful-paint');
      if (fcp) {
        observer.disconnect();
        resolve(fcp.startTime);
      }
    }).observe({ type: 'paint', buffered: true });
  });
  window.__startedAt = new Promise((resolve) => {
    const frame = () => {
      if (document.readyState !== 'loading' && !document.querySelector('details.server-page')) resolve(performance.now());
      else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });`;
}

/**
 * Launches Chromium with the omnibox popup's WebUI off. In headless Chromium each new context opens a window whose
 * omnibox popup (chrome://omnibox-popup.top-chrome) loads in a renderer of its own during the page's load: 0.5–0.7 s
 * of CPU in a trace, on a machine of two cores, which a person's browser (its window open already) does not spend
 * when a page loads. Chromium honours only the last --disable-features, so Playwright's own list (read from the
 * browser's command line) is kept in it.
 */
async function launchBrowser(): Promise<Browser> {
  // The browser's own command line (Browser.getBrowserCommandLine answers only with --enable-automation).
  const probe = await chromium.launch({ executablePath: CHROMIUM, args: [...ARGS, '--enable-automation'] });
  let playwrightDisabled: string[] = [];
  try {
    const session = await probe.newBrowserCDPSession();
    const { arguments: argv } = (await session.send('Browser.getBrowserCommandLine')) as { arguments: string[] };
    playwrightDisabled = argv.filter((a) => a.startsWith('--disable-features=')).flatMap((a) => a.slice('--disable-features='.length).split(','));
  } finally {
    await probe.close();
  }
  const disabled = [...playwrightDisabled, 'WebUIOmniboxPopup'].join(',');
  return chromium.launch({ executablePath: CHROMIUM, args: [...ARGS, `--disable-features=${disabled}`] });
}

interface Drawn {
  selector: string;
  state: 'attached' | 'visible';
}

/**
 * Milliseconds from the start of navigation until the page draws `drawn`, in a fresh context, and the bytes received
 * by then. Without `scripts`, every script the page asks for is blocked by the browser's network layer (the page's
 * own JavaScript never runs, as with JavaScript off; only the instrument does).
 */
async function timeLoad(browser: Browser, url: string, scripts: boolean, drawn: Drawn): Promise<{ ms: number; startedMs: number | null } & Transfer> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    if (!scripts) {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.setBlockedURLs', { urls: ['*.js', '*.mjs'] });
    }
    await page.addInitScript(drawnAt(drawn.selector, drawn.state));
    const sizes: Promise<Transfer>[] = [];
    const pending = new Set<Request>();
    let settled = performance.now();
    const done = (request: Request) => {
      if (pending.delete(request)) settled = performance.now();
    };
    page.on('request', (request) => {
      // A stream (the app's live prices and events) stays open: it is not a load.
      if (request.resourceType() !== 'eventsource') pending.add(request);
    });
    page.on('requestfailed', done);
    page.on('requestfinished', (request) => {
      done(request);
      // sizes() is the network's count: the encoded body, as the browser received it, and the headers.
      const isScript = request.resourceType() === 'script';
      sizes.push(
        request.sizes().then(
          (s) => {
            const bytes = s.responseBodySize + s.responseHeadersSize;
            return { totalBytes: bytes, jsBytes: isScript ? bytes : 0 };
          },
          () => ({ totalBytes: 0, jsBytes: 0 }),
        ),
      );
    });
    await page.goto(url, { waitUntil: 'commit' });
    const within30s = <T>(key: '__drawnAt' | '__firstPaintAt' | '__startedAt') =>
      page.evaluate(
        (k) =>
          Promise.race([
            (globalThis as unknown as Record<string, Promise<number>>)[k]!,
            new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${k} not reached within 30 s`)), 30_000)),
          ]),
        key,
      ) as Promise<T>;
    // A frame is on the screen once it is presented, which the page's clock does not see for a later frame; the first
    // contentful paint's time is that frame's presentation: an element drawn in it counts from there.
    const ms = Math.max(await within30s<number>('__drawnAt'), await within30s<number>('__firstPaintAt'));
    const startedMs = scripts ? await within30s<number>('__startedAt') : null;
    // The bytes of the whole load: whatever the page still fetches after it is drawn (the app's entry and the chunks its
    // first render imports) counts, until nothing is in flight for QUIET_MS.
    const deadline = performance.now() + 30_000;
    while (pending.size > 0 || performance.now() - settled < QUIET_MS) {
      if (performance.now() > deadline) throw new Error(`${url}: requests still in flight after 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const counted = await Promise.all(sizes);
    return {
      ms,
      startedMs,
      totalBytes: counted.reduce((sum, s) => sum + s.totalBytes, 0),
      jsBytes: counted.reduce((sum, s) => sum + s.jsBytes, 0),
    };
  } finally {
    await context.close();
  }
}

const ratio = (app: number, html: number) => Math.round((app / html) * 100) / 100;

function kB(bytes: number): number {
  return Math.round(bytes / 102.4) / 10;
}

/** Median kB received per load (all responses, and scripts). */
function transferred(loads: Transfer[]): { totalKB: number; jsKB: number } {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? 0;
  return { totalKB: kB(median(loads.map((l) => l.totalBytes))), jsKB: kB(median(loads.map((l) => l.jsBytes))) };
}

async function main(): Promise<void> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'web-bench-'));
  const env: Record<string, string> = { DATA_DIR: path.join(dataDir, 'data'), RATE_LIMIT_API_PER_MIN: '100000' };
  const saved = process.env.DATABASE_URL;
  delete process.env.DATABASE_URL; // the embedded database, as `npm start` with nothing set
  const service = await startServiceProcess(env);
  if (saved !== undefined) process.env.DATABASE_URL = saved;
  const browser = await launchBrowser();
  try {
    const listing = (await (await fetch(`${service.baseUrl}/api/markets?limit=1`)).json()) as { markets: Array<{ slug: string }> };
    const slug = listing.markets[0]?.slug;
    if (!slug) throw new Error('no market listed');
    const home = `${service.baseUrl}/`;
    const market = `${service.baseUrl}/markets/${encodeURIComponent(slug)}`;
    // The app's list (its section heading exists only in the app's view: drawn by React in the browser, or by the service
    // in the page's first view) with a market link in it.
    const appMarkets: Drawn = { selector: 'section[aria-labelledby="browse-heading"] a[href^="/markets/"]', state: 'visible' };
    // The chart: the line the page's first view draws (SVG, in the HTML the service rendered) or uPlot's canvas.
    const appChart: Drawn = { selector: '.chart svg, .chart canvas', state: 'attached' };
    // The server's own page (its scripts blocked): its first heading, drawn from the HTML alone.
    const serverHeading: Drawn = { selector: 'h1', state: 'attached' };

    // One untimed load of each warms the service's caches and the OS's file cache.
    await timeLoad(browser, home, true, appMarkets);
    await timeLoad(browser, market, true, appChart);
    const runs = { home: [] as number[], market: [] as number[], homeHtml: [] as number[], marketHtml: [] as number[] };
    const started = { home: [] as number[], market: [] as number[] };
    const bytes = { home: [] as Transfer[], market: [] as Transfer[] };
    for (let i = 0; i < LOADS; i++) {
      const homeLoad = await timeLoad(browser, home, true, appMarkets);
      runs.home.push(homeLoad.ms);
      started.home.push(homeLoad.startedMs!);
      bytes.home.push(homeLoad);
      runs.homeHtml.push((await timeLoad(browser, home, false, serverHeading)).ms);
      const marketLoad = await timeLoad(browser, market, true, appChart);
      runs.market.push(marketLoad.ms);
      started.market.push(marketLoad.startedMs!);
      bytes.market.push(marketLoad);
      runs.marketHtml.push((await timeLoad(browser, market, false, serverHeading)).ms);
    }
    const result = {
      bench: 'web',
      loads: LOADS,
      homeFirstMarkets: figures(runs.home),
      homeServerHtml: figures(runs.homeHtml),
      marketChartDrawn: figures(runs.market),
      marketServerHtml: figures(runs.marketHtml),
      homeOverHtml: ratio(figures(runs.home).medianMs, figures(runs.homeHtml).medianMs),
      marketOverHtml: ratio(figures(runs.market).medianMs, figures(runs.marketHtml).medianMs),
      homeOverHtmlP95: ratio(figures(runs.home).p95Ms, figures(runs.homeHtml).p95Ms),
      marketOverHtmlP95: ratio(figures(runs.market).p95Ms, figures(runs.marketHtml).p95Ms),
      // The app's first render in place of the service's view (no bar: the view is what a person sees until then).
      homeAppStarted: figures(started.home),
      marketAppStarted: figures(started.market),
      homeTransferred: transferred(bytes.home),
      marketTransferred: transferred(bytes.market),
      // Issue 36's bars: each page within 1.5x its HTML alone (medians and p95), the first page's JavaScript <= 120 kB.
      targets: { maxOverHtml: 1.5, maxFirstPageJsKB: 120 },
    };
    const met = {
      overHtmlMet: Math.max(result.homeOverHtml, result.marketOverHtml, result.homeOverHtmlP95, result.marketOverHtmlP95) <= result.targets.maxOverHtml,
      firstPageJsMet: result.homeTransferred.jsKB <= result.targets.maxFirstPageJsKB,
    };
    console.log(
      `home: first markets drawn median ${result.homeFirstMarkets.medianMs} ms, p95 ${result.homeFirstMarkets.p95Ms} ms (server HTML alone ${result.homeServerHtml.medianMs} ms; the app started ${result.homeAppStarted.medianMs} ms)`,
    );
    console.log(
      `market: chart drawn median ${result.marketChartDrawn.medianMs} ms, p95 ${result.marketChartDrawn.p95Ms} ms (server HTML alone ${result.marketServerHtml.medianMs} ms; the app started ${result.marketAppStarted.medianMs} ms)`,
    );
    console.log(
      `transferred (compressed, as received): home ${result.homeTransferred.totalKB} kB (JavaScript ${result.homeTransferred.jsKB} kB), market ${result.marketTransferred.totalKB} kB (JavaScript ${result.marketTransferred.jsKB} kB)`,
    );
    console.log(JSON.stringify({ ...result, targets: { ...result.targets, ...met } }));
  } finally {
    await browser.close();
    await service.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
