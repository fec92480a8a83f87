/**
 * `npm run bench:web`: how soon a person sees something, in headless Chromium (Debian's) against the built
 * service on the embedded database. For the home page, the time from navigation to the app's first markets
 * drawn; for a market page, to the app's price chart drawn (the first view's SVG line, or uPlot's canvas). Each of LOADS loads (default 20) is a
 * fresh browser context, so nothing is cached. The baseline, in the same command, is the same page with
 * JavaScript off: the server-rendered HTML alone, to its first heading. Each app load also counts the bytes the
 * browser received (headers and bodies as they crossed the wire, compressed): all of them, and its JavaScript.
 * Last line: one JSON object.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startServiceProcess } from './support/harness';

const LOADS = Number(process.env.BENCH_LOADS ?? 20);
const POLL_MS = 5;
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
  /** Every response's headers and body as received (encoded), until the page was drawn. */
  totalBytes: number;
  /** The same for scripts only. */
  jsBytes: number;
}

/**
 * Waits until `selector` matches an element (visible, or only attached), checking every POLL_MS. Playwright's own waitFor checks at 0, 20, 70, 170,
 * 270, 770, 1,270 … ms, so a page drawn at 300 ms was counted at 770: the app (drawn late) lost up to half a second to
 * the schedule and the HTML alone (found at the first check) none. Each check is one evaluation in the page, which
 * waits while the page's own script runs, as a person's view would.
 */
async function whenDrawn(page: Page, selector: string, state: 'attached' | 'visible'): Promise<void> {
  const deadline = performance.now() + 30_000;
  const first = page.locator(selector).first();
  while (!(state === 'visible' ? await first.isVisible() : (await first.count()) > 0)) {
    if (performance.now() > deadline) throw new Error(`${selector} not drawn within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
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

/** Milliseconds from the start of navigation until `drawn` resolves in a fresh context, and the bytes received by then. */
async function timeLoad(browser: Browser, url: string, javaScript: boolean, drawn: (page: Page) => Promise<unknown>): Promise<{ ms: number } & Transfer> {
  const context = await browser.newContext({ javaScriptEnabled: javaScript, viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const sizes: Promise<Transfer>[] = [];
    page.on('requestfinished', (request) => {
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
    const started = performance.now();
    await page.goto(url, { waitUntil: 'commit' });
    await drawn(page);
    const ms = performance.now() - started;
    const counted = await Promise.all(sizes);
    return {
      ms,
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
    const appMarkets = (page: Page) => whenDrawn(page, 'section[aria-labelledby="browse-heading"] a[href^="/markets/"]', 'visible');
    // The chart: the line the page's first view draws (SVG, in the HTML the service rendered) or uPlot's canvas.
    const appChart = (page: Page) => whenDrawn(page, '.chart svg, .chart canvas', 'attached');
    // The server's own page (JavaScript off): its first heading, drawn from the HTML alone.
    const serverHeading = (page: Page) => whenDrawn(page, 'h1', 'attached');

    // One untimed load of each warms the service's caches and the OS's file cache.
    await timeLoad(browser, home, true, appMarkets);
    await timeLoad(browser, market, true, appChart);
    const runs = { home: [] as number[], market: [] as number[], homeHtml: [] as number[], marketHtml: [] as number[] };
    const bytes = { home: [] as Transfer[], market: [] as Transfer[] };
    for (let i = 0; i < LOADS; i++) {
      const homeLoad = await timeLoad(browser, home, true, appMarkets);
      runs.home.push(homeLoad.ms);
      bytes.home.push(homeLoad);
      runs.homeHtml.push((await timeLoad(browser, home, false, serverHeading)).ms);
      const marketLoad = await timeLoad(browser, market, true, appChart);
      runs.market.push(marketLoad.ms);
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
      `home: first markets drawn median ${result.homeFirstMarkets.medianMs} ms, p95 ${result.homeFirstMarkets.p95Ms} ms (server HTML alone ${result.homeServerHtml.medianMs} ms)`,
    );
    console.log(
      `market: chart drawn median ${result.marketChartDrawn.medianMs} ms, p95 ${result.marketChartDrawn.p95Ms} ms (server HTML alone ${result.marketServerHtml.medianMs} ms)`,
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
