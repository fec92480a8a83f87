import type { Page } from 'playwright-core';
import { describeWithChromium, expectNoSideScroll, pageErrors, signUp, startWebHarness, type WebHarness, signOut } from '../support/browser';

/** Defects a person met in the web app (issue 36), each driven in Chromium. */

type Market = { id: string; slug: string; question: string; outcomeTokens: { outcome: 'YES' | 'NO'; tokenId: string }[] };

/** An active market of the simulated venue, read over the page's own session. */
async function firstMarket(page: Page): Promise<Market> {
  const list = (await (await page.request.get('/api/markets?limit=1')).json()) as { markets: Market[] };
  return list.markets[0]!;
}

/** A buy over REST with the page's session (the browser's own Origin, as the CSRF rule wants). */
async function buyOver(page: Page, baseUrl: string, market: Market, amount: number): Promise<void> {
  const yes = market.outcomeTokens.find((t) => t.outcome === 'YES')!;
  const res = await page.request.post('/api/trade', {
    headers: { Origin: baseUrl },
    data: { marketId: market.id, marketSlug: market.slug, tokenId: yes.tokenId, outcome: 'YES', amount },
  });
  expect(res.status()).toBe(200);
}

/** Words of every table cell that are drawn over more than one line ("Share|s", "100.|0¢"), as the page lays them out now. */
function tokensBrokenAcrossLines(page: Page): Promise<string[]> {
  // Runs in the page; a string keeps the service's tsconfig free of DOM types.
  return page.evaluate(`(() => {
    const broken = [];
    for (const cell of document.querySelectorAll('td, th')) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const re = /\\S+/g;
        let m;
        while ((m = re.exec(node.textContent))) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (lines.size > 1) broken.push(m[0]);
        }
      }
    }
    return broken;
  })()`) as Promise<string[]>;
}

/** The text of a figure of the portfolio's totals, by its term. */
const total = (page: Page, term: string) =>
  page
    .locator('.totals div')
    .filter({ has: page.locator('dt', { hasText: new RegExp(`^${term}$`) }) })
    .locator('dd');

describeWithChromium('defects of the web app (issue 36) in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness();
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  test('when a browser opens an unknown page or market address, then the app says "Nothing here" or "Market not found" (with the list to look in), while an agent asking for JSON keeps its JSON 404', async () => {
    const page = await web.newPage();
    const cases = [
      ['/no-such-page', 'Nothing here', 'markets', '/'],
      ['/markets/no-such-market', 'Market not found', 'markets page', '/'],
      ['/community-markets/nope', 'Market not found', 'community markets', '/community-markets'],
    ] as const;
    for (const [path, heading, link, href] of cases) {
      const res = await page.goto(path);
      expect(res!.status()).toBe(404);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await expect(page.getByRole('main').getByRole('link', { name: link, exact: true }).getAttribute('href')).resolves.toBe(href);
      if (heading === 'Market not found') await page.getByText('There is no market at this address').waitFor();
      // The app drew it: its header is there, and no JSON is on the screen.
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      await expect(page.locator('body').textContent()).resolves.not.toContain('"code"');
      const json = await page.request.get(path, { headers: { Accept: 'application/json' } });
      expect(json.status()).toBe(404);
      expect(((await json.json()) as { code: string }).code).toBe('NOT_FOUND');
      const any = await page.request.get(path, { headers: { Accept: '*/*' } });
      expect(any.headers()['content-type']).toMatch(/^application\/json/);
    }
    expect(pageErrors(page).filter((e) => !/status of 404/.test(e))).toEqual([]);
  });

  test('when a person holds a community market position, then the portfolio links it to the community market page', async () => {
    const page = await web.newPage();
    await signUp(page);
    const made = await page.request.post('/api/user-markets', {
      headers: { Origin: web.baseUrl },
      data: {
        question: 'Will the ferry run on the holiday?',
        category: 'Travel',
        outcomes: ['Yes', 'No'],
        endDate: new Date(Date.now() + 3 * 86400_000).toISOString(),
      },
    });
    expect(made.status()).toBe(200);
    const market = (await made.json()) as { slug: string; outcomeTokens: { tokenId: string }[] };
    const bought = await page.request.post('/api/user-markets/trade', {
      headers: { Origin: web.baseUrl },
      data: { tokenId: market.outcomeTokens[0]!.tokenId, amount: 20 },
    });
    expect(bought.status()).toBe(200);

    await page.goto('/portfolio');
    const link = page.getByRole('region', { name: 'Open positions' }).getByRole('link', { name: 'Will the ferry run on the holiday?' });
    await expect(link.getAttribute('href')).resolves.toBe(`/community-markets/${market.slug}`);
    const traded = page.getByRole('region', { name: 'Trade history' }).getByRole('link', { name: 'Will the ferry run on the holiday?' });
    await expect(traded.getAttribute('href')).resolves.toBe(`/community-markets/${market.slug}`);
    await link.click();
    await page.getByRole('heading', { level: 1, name: 'Will the ferry run on the holiday?' }).waitFor();
    await expect(page.getByText(/No market with id or slug/).count()).resolves.toBe(0);
    expect(pageErrors(page)).toEqual([]);
  });

  test('when tables are drawn at 1280 and 390 px, then no word or number of a cell breaks across lines and no page scrolls sideways', async () => {
    for (const width of [1280, 390]) {
      const page = await web.newPage({ width });
      await signUp(page);
      const market = await firstMarket(page);
      await buyOver(page, web.baseUrl, market, 100);
      await buyOver(page, web.baseUrl, market, 14.73);
      // A finished order, so the order history's table is drawn too.
      const yes = market.outcomeTokens.find((t) => t.outcome === 'YES')!;
      const order = await page.request.post('/api/orders', {
        headers: { Origin: web.baseUrl },
        data: { tokenId: yes.tokenId, side: 'BUY', limitPrice: 0.01, size: 100, timeInForce: 'IOC' },
      });
      expect(order.status()).toBe(200);
      await page.goto('/portfolio');
      await page.getByRole('region', { name: 'Trade history' }).getByRole('cell', { name: 'Buy YES' }).first().waitFor();
      await expect(page.getByRole('region', { name: 'Trade history' }).getByRole('row').count()).resolves.toBe(3);
      await expect(tokensBrokenAcrossLines(page)).resolves.toEqual([]);
      await expectNoSideScroll(page);
      const { scrollWidth, innerWidth } = (await page.evaluate('({ scrollWidth: document.scrollingElement.scrollWidth, innerWidth: window.innerWidth })')) as {
        scrollWidth: number;
        innerWidth: number;
      };
      expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
      await page.getByRole('region', { name: 'Order history' }).getByRole('row').nth(1).waitFor();
      await expect(tokensBrokenAcrossLines(page)).resolves.toEqual([]);
    }
  });

  test('when a person sells part of a position, then the rest keeps its Sell button at once, the field starts with at most 2 decimals, and one share reads "1 share"', async () => {
    const page = await web.newPage();
    await signUp(page);
    const market = await firstMarket(page);
    await buyOver(page, web.baseUrl, market, 30);
    await page.goto(`/markets/${market.slug}`);
    const position = page.getByRole('region', { name: 'Your position' });
    await position.getByRole('button', { name: /^Sell YES shares/ }).click();
    const field = position.getByLabel(/Shares to sell/);
    expect(await field.inputValue()).toMatch(/^\d+(\.\d{1,2})?$/);
    await field.fill('1');
    await position.getByText(/^Quote: 1 share at /).waitFor();
    await position.getByRole('button', { name: 'Confirm sale' }).click();
    await position
      .getByRole('status')
      .filter({ hasText: /^Sold 1 share at / })
      .waitFor();
    // The shares left can be sold again without a reload; the number the field starts with sells all of them, dust included.
    await position.getByRole('button', { name: /^Sell YES shares/ }).click();
    await position.getByText(/^Quote: /).waitFor();
    await position.getByRole('button', { name: 'Confirm sale' }).click();
    await position.getByText('You hold no shares of this market.').waitFor();
    const held = (await (await page.request.get('/api/positions')).json()) as { positions: { isClosed: boolean }[] };
    expect(held.positions.map((p) => p.isClosed)).toEqual([true]);
    expect(pageErrors(page)).toEqual([]);
  });

  test('when a person creates a community market, then the form says what it costs before, and the header balance follows the creation and the resolution', async () => {
    const page = await web.newPage();
    await signUp(page);
    const header = page.getByLabel('Available cash');
    await expect(header.textContent()).resolves.toBe('$1,000.00');
    await page.goto('/community-markets');
    await page.getByRole('button', { name: 'Create a market' }).click();
    await expect(page.getByLabel('Market maker funding (virtual dollars)').inputValue()).resolves.toBe('100');
    await page.getByText(/Creating the market takes this from your cash now/).waitFor();
    await page.getByLabel('Question', { exact: true }).fill('Will the bakery open a second shop?');
    await page.getByLabel('Category', { exact: true }).fill('Local');
    await page.getByLabel('End date').fill('2031-01-01T00:00');
    await page.getByRole('button', { name: 'Create market for $100.00' }).click();
    await page.getByRole('heading', { level: 1, name: 'Will the bakery open a second shop?' }).waitFor();
    await header.filter({ hasText: '$900.00' }).waitFor({ timeout: 5_000 });

    // Voided before its end date: the market maker's cash comes back to its creator.
    await page.getByLabel('Void: none of them', { exact: false }).check();
    await page.getByLabel('Reason for voiding').fill('Asked by mistake.');
    await page.getByRole('button', { name: 'Resolve market' }).click();
    await page.getByRole('status').filter({ hasText: 'Resolved void' }).waitFor();
    await header.filter({ hasText: '$1,000.00' }).waitFor({ timeout: 5_000 });
    expect(pageErrors(page)).toEqual([]);
  });

  test('when a limit order rests, then the header and portfolio show the cash it reserves, the order names its market, and the market page lists it with cancel', async () => {
    const page = await web.newPage();
    await signUp(page);
    const market = await firstMarket(page);
    const yes = market.outcomeTokens.find((t) => t.outcome === 'YES')!;
    const placed = await page.request.post('/api/orders', {
      headers: { Origin: web.baseUrl },
      data: { tokenId: yes.tokenId, side: 'BUY', limitPrice: 0.01, size: 10, timeInForce: 'GTC' },
    });
    expect(placed.status()).toBe(200);

    await page.goto('/portfolio');
    await expect(total(page, 'Cash').textContent()).resolves.toBe('$1,000.00');
    await total(page, 'Reserved by orders').filter({ hasText: '$10.00' }).waitFor();
    await expect(total(page, 'Available').textContent()).resolves.toBe('$990.00');
    await expect(page.getByLabel('Available cash').textContent()).resolves.toBe('$990.00');
    const open = page.getByRole('region', { name: 'Open orders' });
    await open.getByRole('link', { name: market.question }).waitFor();

    await open.getByRole('link', { name: market.question }).click();
    await page.getByRole('heading', { level: 1, name: market.question }).waitFor();
    const mine = page.getByRole('region', { name: 'Your open orders' });
    await mine.getByRole('button', { name: /^Cancel order: Buy YES \$10\.00 at 1\.0¢/ }).click();
    await mine.getByText('No open orders on this market.').waitFor();
    await page.getByLabel('Available cash').filter({ hasText: '$1,000.00' }).waitFor();
    expect(pageErrors(page)).toEqual([]);
  });

  test('when a person reads the community page, a new profile and a taken email, then the words are right: priced markets, "—" for empty rates, a sign-in link', async () => {
    const page = await web.newPage();
    const person = await signUp(page);
    await page.goto('/community-markets');
    await page.getByRole('heading', { level: 1, name: 'Community markets' }).waitFor();
    await expect(page.getByText(/no live prices/).count()).resolves.toBe(0);
    await page.getByText(/priced by its own automated market maker/).waitFor();

    const me = (await (await page.request.get('/api/user/me')).json()) as { user: { id: string } };
    await page.goto(`/traders/${me.user.id}`);
    const figure = (term: string) =>
      page
        .locator('.totals div')
        .filter({ has: page.locator('dt', { hasText: term }) })
        .locator('dd');
    await expect(figure('Win rate').textContent()).resolves.toBe('—');
    await expect(figure('Accuracy').textContent()).resolves.toBe('—');

    await signOut(page);
    await page.getByRole('link', { name: 'Sign in' }).first().waitFor();
    await page.goto('/signup');
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill('another-password');
    await page.getByLabel('Display name').fill('Again');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('link', { name: 'Sign in instead' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  });
});
