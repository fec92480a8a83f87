import type { Page, Response } from 'playwright-core';
import { describeWithChromium, pageErrors, signUp, startWebHarness, type WebHarness } from '../support/browser';

/** Every API answer the page got, in order: path and status. */
function recordApi(page: Page): { path: string; status: number }[] {
  const seen: { path: string; status: number }[] = [];
  page.on('response', (r: Response) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/api/')) seen.push({ path: url.pathname + url.search, status: r.status() });
  });
  return seen;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Marks the document, so a test can tell that the page was never reloaded (a reload loses the mark). */
const markDocument = (page: Page) => page.evaluate('window.__notReloaded = true');
const stillSameDocument = async (page: Page) => (await page.evaluate('window.__notReloaded === true')) as boolean;

/**
 * Issue 36, item 2: a person never meets the rate limit by browsing. The limit is the default (30 api calls a minute,
 * per account) and the pace a person's (a market every 2 s). A market's first visit costs two counted reads (its odds
 * and its chart); a return within the minute costs none (shared cache); a later one reads again (a free 304 when the answer is unchanged).
 * Thirty *different* markets in a minute would need sixty counted reads, which no client of a 30-a-minute API can
 * do, so the person compares ten markets of the home list, three times over.
 */
describeWithChromium('browsing at a person pace under the default rate limit (30 calls a minute), in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness({ config: { RATE_LIMIT_API_PER_MIN: 30 } });
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  test('when a signed-in person opens 30 markets, 2 s each (ten of the home list, three times over, back to the list between), then no call is refused and no rate-limit message appears', async () => {
    const page = await web.newPage();
    await signUp(page);
    const api = recordApi(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Markets', exact: true }).click();
    const links = page.getByRole('list', { name: 'Markets' }).getByRole('link');
    await links.first().waitFor();
    const notice = page.getByRole('status').filter({ hasText: /fetching again/ });
    const started = Date.now();
    for (let i = 0; i < 30; i++) {
      // A market every 2 s: the person reads it, goes back to the list and picks the next.
      await sleep(started + 2000 * i - Date.now());
      const link = links.nth(i % 10);
      const question = (await link.textContent())!;
      await link.click();
      await page.getByRole('heading', { level: 1, name: question }).waitFor();
      await page.getByRole('img', { name: /YES price over/ }).waitFor();
      expect(await notice.count()).toBe(0);
      await page.goBack();
      await links.first().waitFor();
    }
    // The pace held (a slow machine must not turn this into a slower person): 30 markets in about a minute.
    expect(Date.now() - started).toBeLessThan(75_000);
    expect(api.filter((a) => a.status === 429)).toEqual([]);
    // Live prices cost one counted call per stream opened: the home page's (its highlights, then its list, at most two) covers
    // the markets listed, so opening them opens no other.
    expect(api.filter((a) => a.path.startsWith('/api/markets/stream')).length).toBeLessThanOrEqual(2);
    await expect(page.getByText(/Rate limit/i).count()).resolves.toBe(0);
    expect(pageErrors(page)).toEqual([]);
  }, 240_000);
});

describeWithChromium('waiting out the rate limit, filters in the address, and a lost session, in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness();
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  const rateLimited = (retryAfterS: number) => ({
    status: 429,
    headers: { 'Content-Type': 'application/json', 'Retry-After': String(retryAfterS), 'Access-Control-Expose-Headers': 'Retry-After' },
    body: JSON.stringify({ error: 'Rate limit exceeded: 30 api requests per minute.', code: 'RATE_LIMITED', hint: `Retry after ${retryAfterS} seconds.` }),
  });

  test('when a market read is refused with 429 and Retry-After, then a countdown shows and the market appears by itself when it ends, without a reload', async () => {
    const page = await web.newPage();
    await page.goto('/');
    const first = page.getByRole('list', { name: 'Markets' }).getByRole('link').first();
    const question = (await first.textContent())!;
    let refused = 0;
    await page.route(/\/api\/markets\/[^/?]+$/, async (route) => {
      if (refused++ === 0) await route.fulfill(rateLimited(3));
      else await route.continue();
    });
    await markDocument(page);
    await first.click();
    const notice = page.getByRole('status').filter({ hasText: /fetching again in \d s, no need to reload/ });
    await notice.waitFor();
    const shown = Number(/in (\d) s/.exec((await notice.textContent())!)![1]);
    expect(shown).toBeGreaterThanOrEqual(2);
    expect(shown).toBeLessThanOrEqual(4);
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.getByRole('heading', { level: 1, name: question }).waitFor({ timeout: 10_000 });
    await notice.waitFor({ state: 'hidden' });
    expect(refused).toBe(2);
    expect(await stillSameDocument(page)).toBe(true);
    expect(pageErrors(page).filter((e) => !/status of 429/.test(e))).toEqual([]);
  });

  test('when the next page of markets is refused with 429, then the markets already shown stay while the countdown runs, and the next page follows', async () => {
    const page = await web.newPage();
    await page.goto('/');
    const list = page.getByRole('list', { name: 'Markets' });
    await list.getByRole('listitem').first().waitFor();
    let refused = 0;
    await page.route(/\/api\/markets\?.*cursor=/, async (route) => {
      if (refused++ === 0) await route.fulfill(rateLimited(2));
      else await route.continue();
    });
    await page.getByRole('button', { name: 'Show more markets' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /fetching again in \d s/ })
      .waitFor();
    expect(await list.getByRole('listitem').count()).toBe(20);
    await list.getByRole('listitem').nth(20).waitFor({ timeout: 10_000 });
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  test('when a person sorts and filters markets, opens one and goes Back, then the order and category are still chosen; the address opens the same view elsewhere', async () => {
    const page = await web.newPage();
    await page.goto('/');
    const list = page.getByRole('list', { name: 'Markets' });
    await list.getByRole('listitem').first().waitFor();
    await page.getByRole('button', { name: 'Ending soon' }).click();
    const category = page.getByLabel('Category');
    const option = (await category.locator('option').nth(1).getAttribute('value'))!;
    await category.selectOption(option);
    await page.waitForURL((url) => url.searchParams.get('sort') === 'ending' && url.searchParams.get('category') === option);
    await list.getByRole('listitem').first().waitFor();
    const firstQuestion = (await list.getByRole('link').first().textContent())!;

    await list.getByRole('link').first().click();
    await page.getByRole('heading', { level: 1, name: firstQuestion }).waitFor();
    await page.goBack();
    await list.getByRole('listitem').first().waitFor();
    await expect(page.getByRole('button', { name: 'Ending soon' }).getAttribute('aria-pressed')).resolves.toBe('true');
    await expect(category.inputValue()).resolves.toBe(option);
    expect((await list.getByRole('listitem').allTextContents()).every((t) => t.includes(option))).toBe(true);

    // A shared link: another browser opens the same view.
    const shared = page.url();
    const other = await web.newPage();
    await other.goto(shared);
    await other.getByRole('list', { name: 'Markets' }).getByRole('listitem').first().waitFor();
    await expect(other.getByRole('button', { name: 'Ending soon' }).getAttribute('aria-pressed')).resolves.toBe('true');
    await expect(other.getByLabel('Category').inputValue()).resolves.toBe(option);
    await expect(other.getByRole('list', { name: 'Markets' }).getByRole('link').first().textContent()).resolves.toBe(firstQuestion);

    // An address with a value the page does not offer shows the default, not an error.
    await other.goto('/?sort=sideways');
    await other.getByRole('list', { name: 'Markets' }).getByRole('listitem').first().waitFor();
    await expect(other.getByRole('button', { name: 'Most traded' }).getAttribute('aria-pressed')).resolves.toBe('true');
  });

  test('when a person picks a leaderboard and a benchmark board, then the address holds the choice, Back keeps it and a shared link opens it', async () => {
    const page = await web.newPage();
    await page.goto('/leaderboard');
    await page.getByLabel('Metric').selectOption('volume');
    await page.getByLabel('Period').selectOption('monthly');
    await page.waitForURL((url) => url.searchParams.get('metric') === 'volume' && url.searchParams.get('period') === 'monthly');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Benchmark' }).click();
    await page.getByLabel('Metric').selectOption('brier');
    await page.waitForURL((url) => url.pathname === '/benchmark' && url.searchParams.get('metric') === 'brier');
    const board = page.url();
    await page.goBack();
    await page.waitForURL((url) => url.pathname === '/leaderboard');
    await expect(page.getByLabel('Metric').inputValue()).resolves.toBe('volume');
    await expect(page.getByLabel('Period').inputValue()).resolves.toBe('monthly');

    const other = await web.newPage();
    await other.goto(board);
    await expect(other.getByLabel('Metric').inputValue()).resolves.toBe('brier');
  });

  test('when the session ends while a person types a trade, then the header shows them signed out, sign-in is offered, and after signing in the ticket still holds what they typed', async () => {
    const page = await web.newPage();
    const person = await signUp(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Markets', exact: true }).click();
    const first = page.getByRole('list', { name: 'Markets' }).getByRole('link').first();
    const question = (await first.textContent())!;
    await first.click();
    await page.getByRole('heading', { level: 1, name: question }).waitFor();
    const marketUrl = new URL(page.url()).pathname;
    await page.getByRole('button', { name: 'Buy NO' }).click();
    await page.getByLabel('Amount (virtual dollars)').fill('37');
    await page.getByText(/^Quote: .* NO shares/).waitFor();

    // The session ends on the server (expired, or signed out elsewhere).
    await web.app.services.db.query(`DELETE FROM sessions`);
    await page.getByRole('button', { name: 'Buy NO for $37.00' }).click();

    await page.getByRole('link', { name: 'Sign in' }).first().waitFor();
    expect(await page.getByLabel('Signed in as').count()).toBe(0);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).searchParams.get('next')).toBe(marketUrl);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.getByRole('heading', { level: 1, name: question }).waitFor();
    await page.getByLabel('Signed in as').filter({ hasText: person.displayName }).waitFor();
    await expect(page.getByLabel('Amount (virtual dollars)').inputValue()).resolves.toBe('37');
    await expect(page.getByRole('button', { name: 'Buy NO', exact: true }).getAttribute('aria-pressed')).resolves.toBe('true');
    // Nothing was bought while signed out.
    await expect(page.getByLabel('Available cash').textContent()).resolves.toBe('$1,000.00');
  });
});
