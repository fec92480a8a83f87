import type { Page } from 'playwright-core';
import { describeWithChromium, pageErrors, signUp, startWebHarness, type WebHarness } from '../support/browser';
import { toMicro } from '../../src/domain/money/micro';

/** Marks the document, so the test can tell the page was never reloaded (a reload loses the mark). */
const markDocument = (page: Page) => page.evaluate('window.__notReloaded = true');
const stillSameDocument = async (page: Page) => (await page.evaluate('window.__notReloaded === true')) as boolean;

/** Seconds in the market page's "Prices live, N s old" line. */
async function shownAge(page: Page): Promise<number> {
  const text = (await page.locator('.price-age').textContent()) ?? '';
  const m = /, (\d+) s old/.exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Issue 36, item 4: market pages, the portfolio's marks and the header's balance follow the price stream
 * (/api/markets/stream) and the account's event stream (/api/events), without a reload; a price's age is its own.
 */
describeWithChromium('live prices and account events in the web app, in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    // No sync on a timer: the only price moves are the test's.
    web = await startWebHarness({ background: false });
    await web.app.services.marketSync.runOnce({ force: true });
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  /** As the market sync does: store a new price for the token (bid, ask, mid, the venue's time now) and announce it. */
  async function movePrice(tokenId: string, marketId: string, bid: number, ask: number): Promise<void> {
    const at = new Date();
    const [b, a] = [toMicro(bid), toMicro(ask)];
    const mid = (b + a) / 2n;
    const db = web.app.services.db;
    await db.query('UPDATE market_tokens SET bid_micro = $2::bigint, ask_micro = $3::bigint, price_micro = $4::bigint, price_at = $5 WHERE token_id = $1', [
      tokenId,
      b.toString(),
      a.toString(),
      mid.toString(),
      at,
    ]);
    await web.app.services.priceBroadcast.publish(db, [{ tokenId, marketId, priceMicro: mid, bidMicro: b, askMicro: a, at }]);
  }

  test('when a price moves on the server and the same person trades through the API, then the market page, its age, the portfolio and the header follow without a reload', async () => {
    const page = await web.newPage();
    await signUp(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Markets', exact: true }).click();
    const first = page.getByRole('list', { name: 'Markets' }).getByRole('link').first();
    const question = (await first.textContent())!;
    await first.click();
    await page.getByRole('heading', { level: 1, name: question }).waitFor();
    await markDocument(page);
    const slug = new URL(page.url()).pathname.split('/').pop()!;
    const [yes] = await web.app.services.db.query<{ token_id: string; market_id: string; price_micro: string }>(
      `SELECT t.token_id, t.market_id, t.price_micro::text FROM market_tokens t JOIN markets m ON m.id = t.market_id WHERE m.slug = $1 AND t.outcome = 'YES'`,
      [slug],
    );
    await page.getByText('Following live prices.').waitFor();

    // The same person buys through the API (not through the page): the header's cash follows the account's events.
    await expect(page.getByLabel('Available cash').textContent()).resolves.toBe('$1,000.00');
    const status = await page.evaluate(
      async (body) => {
        const res = await fetch('/api/trade', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Idempotency-Key': crypto.randomUUID() },
          body: JSON.stringify(body),
        });
        return `${res.status} ${await res.text()}`;
      },
      { marketId: yes!.market_id, marketSlug: slug, tokenId: yes!.token_id, outcome: 'YES', amount: 100 },
    );
    expect(status).toMatch(/^200 /);
    await page.getByLabel('Available cash').filter({ hasText: '$900.00' }).waitFor({ timeout: 10_000 });

    // A price far from the current one, announced as the sync announces it: the page shows it, with its own age.
    const high = Number(yes!.price_micro) < 500_000;
    const [bid, ask] = high ? [0.86, 0.88] : [0.12, 0.14];
    const mid = (bid + ask) / 2;
    await movePrice(yes!.token_id, yes!.market_id, bid, ask);
    const yesSide = page.locator('.side.yes');
    await yesSide
      .locator('.side-price')
      .filter({ hasText: `${(mid * 100).toFixed(1)}¢` })
      .waitFor({ timeout: 10_000 });
    await expect(yesSide.textContent()).resolves.toContain(`ask ${(ask * 100).toFixed(1)}¢`);
    // The chart's line ends at the streamed price.
    await page.getByText(new RegExp(`YES price over 1w: from .* to ${(mid * 100).toFixed(1)}¢`)).waitFor();
    expect(await shownAge(page)).toBeLessThanOrEqual(1);
    // No new price: the age grows by itself…
    await until('the age to grow', async () => (await shownAge(page)) >= 3);
    // …and the next price starts it again.
    const [bid2, ask2] = high ? [0.9, 0.92] : [0.08, 0.1];
    await movePrice(yes!.token_id, yes!.market_id, bid2, ask2);
    await yesSide
      .locator('.side-price')
      .filter({ hasText: `${(((bid2 + ask2) / 2) * 100).toFixed(1)}¢` })
      .waitFor({ timeout: 10_000 });
    expect(await shownAge(page)).toBeLessThanOrEqual(1);

    // The portfolio marks the position at the streamed price, and follows the next one.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Portfolio' }).click();
    const position = page.locator('.position-list > li').filter({ hasText: question });
    const markOf = async () => (await position.locator('dt:text-is("Mark price") + dd').textContent()) ?? '';
    await until('the mark at the streamed price', async () => (await markOf()) === `${(((bid2 + ask2) / 2) * 100).toFixed(1)}¢`);
    const [bid3, ask3] = high ? [0.94, 0.96] : [0.04, 0.06];
    const mid3 = (bid3 + ask3) / 2;
    await movePrice(yes!.token_id, yes!.market_id, bid3, ask3);
    await until('the mark to follow the stream', async () => (await markOf()) === `${(mid3 * 100).toFixed(1)}¢`);
    // Value = shares × price, the API's rule.
    const held = Number(((await position.locator('dt:text-is("Holding") + dd').textContent()) ?? '').replace(/[^0-9.]/g, ''));
    const value = (await position.locator('dt:text-is("Value") + dd').textContent()) ?? '';
    expect(Number(value.replace(/[$,]/g, ''))).toBeCloseTo(held * mid3, 1);
    expect(await stillSameDocument(page)).toBe(true);
    expect(pageErrors(page)).toEqual([]);
  }, 120_000);

  test('when a person has more tabs open than the server allows account streams, then the tabs share one stream: none is refused, every header follows, and another tab takes over when the first closes', async () => {
    const first = await web.newPage();
    await signUp(first);
    const context = first.context();
    // Every account stream this browser opens, by its answer (a 429 is a tab refused a stream).
    const answers: number[] = [];
    context.on('response', (r) => {
      if (new URL(r.url()).pathname === '/api/events') answers.push(r.status());
    });
    const tabs = [first];
    // Seven tabs where the server holds at most EVENT_STREAMS_PER_ACCOUNT (5) streams of one account.
    expect(web.app.config.EVENT_STREAMS_PER_ACCOUNT).toBeLessThan(7);
    for (let i = 1; i < 7; i++) {
      const tab = await context.newPage();
      await tab.goto(`${web.baseUrl}/portfolio`);
      tabs.push(tab);
    }
    await first.goto(`${web.baseUrl}/portfolio`);
    for (const tab of tabs) await tab.getByLabel('Available cash').filter({ hasText: '$1,000.00' }).waitFor();
    const [yes] = await web.app.services.db.query<{ token_id: string; market_id: string; slug: string }>(
      `SELECT t.token_id, t.market_id, m.slug FROM market_tokens t JOIN markets m ON m.id = t.market_id WHERE m.status = 'active' AND t.outcome = 'YES' ORDER BY m.volume DESC LIMIT 1`,
    );
    const buy = (tab: Page) =>
      tab.evaluate(
        async (body) =>
          (
            await fetch('/api/trade', {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', 'Idempotency-Key': crypto.randomUUID() },
              body: JSON.stringify(body),
            })
          ).status,
        { marketId: yes!.market_id, marketSlug: yes!.slug, tokenId: yes!.token_id, outcome: 'YES', amount: 100 },
      );
    // Give every tab its turn to open a stream it should not open.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await buy(tabs[3]!)).toBe(200);
    for (const tab of tabs) await tab.getByLabel('Available cash').filter({ hasText: '$900.00' }).waitFor({ timeout: 10_000 });
    // One stream for seven tabs: the first tab's, and one more when its sign-up page gave way to the portfolio (a new page
    // waits its turn; a waiting tab took the stream over). Without the sharing, seven, two of them refused with 429.
    expect(answers.length).toBeLessThanOrEqual(2);
    expect(answers.every((status) => status === 200)).toBe(true);
    // The browser's own view of the account's lock: one tab holds it, the six others wait their turn.
    // (Run in the page; a string keeps the tsconfig free of DOM types.)
    const lockState = (tab: Page) =>
      tab.evaluate(`navigator.locks.query().then((q) => {
        const ours = (l) => (l.name || '').startsWith('paper-trading:account-events:');
        return { held: (q.held || []).filter(ours).length, pending: (q.pending || []).filter(ours).length };
      })`) as Promise<{ held: number; pending: number }>;
    expect(await lockState(tabs[6]!)).toEqual({ held: 1, pending: 6 });

    // The tabs close but one, whichever held the stream among them: the last opens it again and still follows.
    for (const tab of tabs.slice(0, -1)) await tab.close();
    const last = tabs[tabs.length - 1]!;
    expect(await buy(last)).toBe(200);
    await last.getByLabel('Available cash').filter({ hasText: '$800.00' }).waitFor({ timeout: 15_000 });
    expect(await lockState(last)).toEqual({ held: 1, pending: 0 });
    expect(answers.every((status) => status === 200)).toBe(true);
    expect(pageErrors(last)).toEqual([]);
  }, 120_000);

  test('when a market page is opened by its address, then the page carries the reads its first view was drawn from and the app reads neither again', async () => {
    const page = await web.newPage();
    const [m] = await web.app.services.db.query<{ slug: string }>(`SELECT slug FROM markets WHERE status = 'active' ORDER BY volume DESC NULLS LAST LIMIT 1`);
    const fetched: string[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname.startsWith('/api/markets/') || url.pathname === '/api/price-history') fetched.push(url.pathname + url.search);
    });
    await page.goto(`/markets/${m!.slug}`);
    await page.locator('.chart canvas').first().waitFor({ state: 'attached' });
    // Carried by the HTML (the market and its YES history, as the app asks for them), with the chart's modules started…
    const carried = JSON.parse((await page.locator('script#first-reads').textContent()) ?? '[]') as Array<{ href: string }>;
    expect(carried.map((r) => r.href)).toEqual([`/api/markets/${m!.slug}`, expect.stringMatching(/^\/api\/price-history\?tokenId=.+&interval=1w$/)]);
    await expect(page.locator('link[rel="preload"][as="fetch"]').count()).resolves.toBe(0);
    expect(await page.locator('link[rel="modulepreload"]').count()).toBeGreaterThanOrEqual(1);
    // …and taken by the app from there: a read the app keyed differently would be fetched here.
    expect(fetched.filter((f) => !f.startsWith('/api/markets/stream'))).toEqual([]);
    expect(pageErrors(page)).toEqual([]);
  }, 60_000);

  test('when the connection is lost, then the market page says so and follows prices again once it is back', async () => {
    const page = await web.newPage();
    await page.goto('/');
    const first = page.getByRole('list', { name: 'Markets' }).getByRole('link').first();
    await first.click();
    await page.getByText('Following live prices.').waitFor();
    // The server cannot answer new streams for now, and ends the open ones as it does when prices may have been missed.
    await page.route(/\/api\/markets\/stream/, (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{"code":"SERVICE_UNAVAILABLE","error":"down"}' }),
    );
    const ends = (web.app.services.priceBroadcast as unknown as { lost: Set<() => void> }).lost;
    for (const end of [...ends]) end();
    await page.getByText('Live prices lost: reconnecting…').waitFor({ timeout: 10_000 });
    // Back: the page reconnects by itself (after its backoff) and follows prices again.
    await page.unroute(/\/api\/markets\/stream/);
    await page.getByText('Following live prices.').waitFor({ timeout: 15_000 });
  }, 60_000);
});
