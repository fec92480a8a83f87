/**
 * `npm run bench:web`: how soon a person sees something, in headless Chromium (Debian's) against the built
 * service on the embedded database. For the home page, the time from navigation to the app's first markets
 * drawn; for a market page, to the app's price chart drawn (its canvas). Each of LOADS loads (default 20) is a
 * fresh browser context, so nothing is cached. The baseline, in the same command, is the same page with
 * JavaScript off: the server-rendered HTML alone, to its first heading. Last line: one JSON object.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startServiceProcess } from './support/harness';

const LOADS = Number(process.env.BENCH_LOADS ?? 20);
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

/** Milliseconds from the start of navigation until `drawn` resolves in a fresh context. */
async function timeLoad(browser: Browser, url: string, javaScript: boolean, drawn: (page: Page) => Promise<unknown>): Promise<number> {
  const context = await browser.newContext({ javaScriptEnabled: javaScript, viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(url, { waitUntil: 'commit' });
    await drawn(page);
    return performance.now() - started;
  } finally {
    await context.close();
  }
}

async function main(): Promise<void> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'web-bench-'));
  const env: Record<string, string> = { DATA_DIR: path.join(dataDir, 'data'), RATE_LIMIT_API_PER_MIN: '100000' };
  const saved = process.env.DATABASE_URL;
  delete process.env.DATABASE_URL; // the embedded database, as `npm start` with nothing set
  const service = await startServiceProcess(env);
  if (saved !== undefined) process.env.DATABASE_URL = saved;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const listing = (await (await fetch(`${service.baseUrl}/api/markets?limit=1`)).json()) as { markets: Array<{ slug: string }> };
    const slug = listing.markets[0]?.slug;
    if (!slug) throw new Error('no market listed');
    const home = `${service.baseUrl}/`;
    const market = `${service.baseUrl}/markets/${encodeURIComponent(slug)}`;
    // The app's list (its section heading exists only once React has drawn it) with a market link in it.
    const appMarkets = (page: Page) => page.locator('section[aria-labelledby="browse-heading"] a[href^="/markets/"]').first().waitFor({ timeout: 30_000 });
    const appChart = (page: Page) => page.locator('.chart canvas').first().waitFor({ state: 'attached', timeout: 30_000 });
    // The server's own page (JavaScript off): its first heading, drawn from the HTML alone.
    const serverHeading = (page: Page) => page.locator('h1').first().waitFor({ state: 'attached', timeout: 30_000 });

    // One untimed load of each warms the service's caches and the OS's file cache.
    await timeLoad(browser, home, true, appMarkets);
    await timeLoad(browser, market, true, appChart);
    const runs = { home: [] as number[], market: [] as number[], homeHtml: [] as number[], marketHtml: [] as number[] };
    for (let i = 0; i < LOADS; i++) {
      runs.home.push(await timeLoad(browser, home, true, appMarkets));
      runs.homeHtml.push(await timeLoad(browser, home, false, serverHeading));
      runs.market.push(await timeLoad(browser, market, true, appChart));
      runs.marketHtml.push(await timeLoad(browser, market, false, serverHeading));
    }
    const result = {
      bench: 'web',
      loads: LOADS,
      homeFirstMarkets: figures(runs.home),
      homeServerHtml: figures(runs.homeHtml),
      marketChartDrawn: figures(runs.market),
      marketServerHtml: figures(runs.marketHtml),
      homeOverHtml: Math.round((figures(runs.home).medianMs / figures(runs.homeHtml).medianMs) * 100) / 100,
      marketOverHtml: Math.round((figures(runs.market).medianMs / figures(runs.marketHtml).medianMs) * 100) / 100,
    };
    console.log(
      `home: first markets drawn median ${result.homeFirstMarkets.medianMs} ms, p95 ${result.homeFirstMarkets.p95Ms} ms (server HTML alone ${result.homeServerHtml.medianMs} ms)`,
    );
    console.log(
      `market: chart drawn median ${result.marketChartDrawn.medianMs} ms, p95 ${result.marketChartDrawn.p95Ms} ms (server HTML alone ${result.marketServerHtml.medianMs} ms)`,
    );
    console.log(JSON.stringify(result));
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
