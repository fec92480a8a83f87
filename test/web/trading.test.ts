import type { Page } from 'playwright-core';
import {
  describeWithChromium,
  expectNoSeriousAxeViolations,
  expectNoSideScroll,
  pageErrors,
  saveScreenshot,
  signOut,
  signUp,
  startWebHarness,
  tabTo,
  type WebHarness,
} from '../support/browser';

/** The first market on the home page's list, opened by clicking its link; returns its question. */
async function openFirstMarket(page: Page): Promise<string> {
  await page.goto('/');
  const first = page.getByRole('list', { name: 'Markets' }).getByRole('link').first();
  const question = (await first.textContent())!;
  await first.click();
  await page.getByRole('heading', { level: 1, name: question }).waitFor();
  return question;
}

const money = (text: string | null) => Number((text ?? '').replace(/[^0-9.]/g, ''));

describeWithChromium('browsing and trading in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness();
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  test('when the home page opens, then it lists active markets by volume, ending soon and newest, by category, a page at a time, and searches as you type', async () => {
    const page = await web.newPage();
    const chartRequests: string[] = [];
    page.on('request', (r) => {
      if (/price-chart/.test(r.url())) chartRequests.push(r.url());
    });
    await page.goto('/');
    const list = page.getByRole('list', { name: 'Markets' });
    await list.getByRole('listitem').first().waitFor();
    expect(await list.getByRole('listitem').count()).toBe(20);
    await page.getByRole('button', { name: 'Show more markets' }).click();
    await list.getByRole('listitem').nth(20).waitFor();

    await page.getByRole('button', { name: 'Ending soon' }).click();
    await expect(page.getByRole('button', { name: 'Ending soon' }).getAttribute('aria-pressed')).resolves.toBe('true');
    await list.getByRole('listitem').first().waitFor();
    await page.getByRole('button', { name: 'Newest' }).click();
    await list.getByRole('listitem').first().waitFor();

    const category = page.getByLabel('Category');
    const option = (await category.locator('option').nth(1).getAttribute('value'))!;
    await category.selectOption(option);
    await list.getByRole('listitem').first().waitFor();
    const metas = await list.getByRole('listitem').allTextContents();
    expect(metas.every((t) => t.includes(option))).toBe(true);

    const question = (await list.getByRole('link').first().textContent())!;
    // A word of letters only: "top-six" is no word the search knows as "topsix".
    const word = question.split(/[^A-Za-z]+/).find((w) => w.length >= 5)!;
    await page.getByLabel('Search markets').pressSequentially(word, { delay: 30 });
    const results = page.getByRole('list', { name: 'Search results' });
    await results.getByRole('link').first().waitFor();
    expect((await results.allTextContents()).join(' ').toLowerCase()).toContain(word.toLowerCase());

    await saveScreenshot(page, 'home');
    await expectNoSeriousAxeViolations(page);
    expect(chartRequests).toEqual([]);
    expect(pageErrors(page)).toEqual([]);
  });

  test('when a person searches, then the term lives in the address: a reload and a shared link show the same results, and clearing it leaves the address', async () => {
    const page = await web.newPage();
    await page.goto('/');
    const question = (await page.getByRole('list', { name: 'Markets' }).getByRole('link').first().textContent())!;
    // A word of letters only: "top-six" is no word the search knows as "topsix".
    const word = question.split(/[^A-Za-z]+/).find((w) => w.length >= 5)!;
    await page.getByLabel('Search markets').pressSequentially(word, { delay: 30 });
    await page.waitForURL((u) => u.pathname === '/' && u.searchParams.get('q') === word);
    const results = page.getByRole('list', { name: 'Search results' });
    await results.getByRole('link').first().waitFor();

    await page.reload();
    await expect(page.getByLabel('Search markets').inputValue()).resolves.toBe(word);
    await results.getByRole('link').first().waitFor();
    const shared = await web.newPage({ width: 390 });
    await shared.goto(`/?q=${encodeURIComponent(word)}`);
    await shared.getByRole('heading', { level: 2, name: `Results for “${word}”` }).waitFor();
    await shared.getByRole('list', { name: 'Search results' }).getByRole('link').first().waitFor();

    await page.getByLabel('Search markets').fill('');
    await page.waitForURL((u) => u.pathname === '/' && !u.searchParams.has('q'));
    await page.getByRole('list', { name: 'Markets' }).waitFor();
    expect(pageErrors(page)).toEqual([]);
    expect(pageErrors(shared)).toEqual([]);
  });

  test('when a person quotes, buys (double click), sells part and opens the portfolio, then each step shows the fill and nothing trades twice', async () => {
    const page = await web.newPage();
    await signUp(page);
    const question = await openFirstMarket(page);
    await expect(page.getByText(/Simulated market\./).isVisible()).resolves.toBe(true);
    await page.getByRole('heading', { name: 'Resolution' }).waitFor();
    // The chart arrives as its own chunk, with the six intervals.
    const chart = page.getByRole('img', { name: /YES price over 1w/ });
    await chart.waitFor();
    for (const i of ['1h', '6h', '1d', '1w', '1m', 'max'])
      await page.getByRole('group', { name: 'Chart interval' }).getByRole('button', { name: i, exact: true }).waitFor();
    await page.getByRole('button', { name: '1d', exact: true }).click();
    await page.getByRole('img', { name: /YES price over 1d/ }).waitFor();
    // Pointing at the line shows the crosshair's tip: the nearest point's time and price.
    const box = (await page.locator('.chart .u-over').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page
      .locator('.chart-tip')
      .filter({ hasText: /^.+: \d+\.\d¢$/ })
      .waitFor();
    await page.mouse.move(0, 0);

    await page.getByRole('button', { name: 'Buy NO' }).click();
    await page.getByLabel('Amount (virtual dollars)').fill('25');
    await page.getByText(/^Quote: .* NO shares at .* for \$25\.00$/).waitFor();
    await page.getByRole('button', { name: 'Buy NO for $25.00' }).dblclick();
    const fill = page.getByRole('status').filter({ hasText: /^Bought/ });
    await fill.waitFor();
    const fillText = (await fill.textContent())!;
    expect(fillText).toMatch(/^Bought [\d.,]+ NO shares at [\d.]+¢ for \$25\.00\. New balance \$975\.00\./);

    // Exactly one buy: one position, and the header's balance moved once.
    await page.getByLabel('Available cash').filter({ hasText: '$975.00' }).waitFor();
    const position = page.getByRole('region', { name: 'Your position' });
    await position.getByText(/NO/).first().waitFor();
    await saveScreenshot(page, 'market');
    await expectNoSeriousAxeViolations(page);

    await position.getByRole('button', { name: /^Sell NO shares/ }).click();
    const held = Number((await position.getByLabel(/Shares to sell/).inputValue()).replace(/,/g, ''));
    await position.getByLabel(/Shares to sell/).fill(String(Math.floor((held / 2) * 100) / 100));
    await position.getByText(/^Quote: /).waitFor();
    await position.getByRole('button', { name: 'Confirm sale' }).dblclick();
    await position.getByRole('status').filter({ hasText: /^Sold/ }).waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Portfolio' }).click();
    await page.getByRole('heading', { level: 1, name: 'Portfolio' }).waitFor();
    const open = page.getByRole('region', { name: 'Open positions' });
    await open.getByRole('link', { name: question }).waitFor();
    expect(await open.getByRole('listitem').count()).toBe(1);
    const cash = money(await page.locator('dt', { hasText: 'Cash' }).locator('xpath=following-sibling::dd').textContent());
    expect(cash).toBeGreaterThan(975);
    expect(cash).toBeLessThan(1000);
    const history = page.getByRole('region', { name: 'Trade history' });
    await history.getByRole('cell', { name: 'Sell NO' }).waitFor();
    expect(await history.getByRole('cell', { name: 'Buy NO' }).count()).toBe(1);
    // The equity chart (its own chunk) is drawn before the picture is taken.
    await page.getByRole('img', { name: /^Equity over the last week: / }).waitFor();
    await saveScreenshot(page, 'portfolio');
    await expectNoSeriousAxeViolations(page);

    // Selling the rest from the portfolio closes the position: it moves to the closed list.
    await open.getByRole('button', { name: /^Sell NO shares/ }).click();
    await open.getByText(/^Quote: /).waitFor();
    await open.getByRole('button', { name: 'Confirm sale' }).click();
    await page.getByRole('region', { name: 'Closed positions' }).getByRole('link', { name: question }).first().waitFor();
    await open.getByText('No open positions.').waitFor();
    await open
      .getByRole('status')
      .filter({ hasText: /^Sold [\d.,]+ shares at .* New balance \$[\d,.]+\.$/ })
      .waitFor();
    expect(pageErrors(page)).toEqual([]);
    // A long walk through four pages: under a loaded machine it outlasts the default minute.
  }, 180_000);

  test('when a buy costs more than the cash, then the ticket says "not enough cash" as it is typed, asks no quote and cannot be clicked', async () => {
    const page = await web.newPage();
    await signUp(page);
    await openFirstMarket(page);
    const calls: string[] = [];
    page.on('request', (r) => {
      // Turning to the ticket quotes the amount it starts with ($10): what counts is what is asked for the typed amount.
      if (r.method() === 'POST' && /\/api\/trade(\/quote)?$/.test(new URL(r.url()).pathname))
        calls.push(`${new URL(r.url()).pathname} ${(r.postDataJSON() as { amount?: number }).amount}`);
    });
    await page.getByLabel('Amount (virtual dollars)').fill('1000.01');
    await page.getByText('Not enough cash: $1,000.01 is more than the $1,000.00 available.').waitFor();
    await expect(page.getByLabel('Amount (virtual dollars)').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByRole('button', { name: 'Buy YES for $1,000.01' }).isDisabled()).resolves.toBe(true);
    // Past the quote's pause: no quote of it was asked and nothing was sent.
    await page.waitForTimeout(800);
    expect(calls.filter((c) => c !== '/api/trade/quote 10')).toEqual([]);
    await expectNoSeriousAxeViolations(page);

    // All of the cash is enough: the message goes and the quote comes.
    await page.getByLabel('Amount (virtual dollars)').fill('1000');
    await page.getByText(/^Quote: .* YES shares at .* for \$1,000\.00$/).waitFor();
    await expect(page.getByText(/Not enough cash/).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Buy YES for $1,000.00' }).isEnabled()).resolves.toBe(true);
    expect(calls.filter((c) => c !== '/api/trade/quote 10')).toEqual(['/api/trade/quote 1000']);
    await expect(page.getByLabel('Available cash').textContent()).resolves.toBe('$1,000.00');
  });

  test.each([1280, 390])(
    'when a limit buy reserves more than the cash (width %i), then the limit form says "not enough cash" as it is typed and cannot be placed; a sell, sized in shares, is not checked against cash',
    async (width) => {
      const page = await web.newPage({ width });
      await signUp(page);
      await openFirstMarket(page);
      let orders = 0;
      page.on('request', (r) => {
        if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/orders') orders += 1;
      });
      const limit = page.getByRole('region', { name: 'Limit order' });
      const size = limit.getByLabel('Size (virtual dollars)');
      await limit.getByLabel('Limit price (cents)').fill('1');
      await size.fill('1000.01');
      await limit.getByText('Not enough cash: $1,000.01 is more than the $1,000.00 available.').waitFor();
      await expect(size.getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(limit.getByRole('button', { name: 'Place buy order' }).isDisabled()).resolves.toBe(true);
      await expectNoSeriousAxeViolations(page);
      // All of the cash is enough.
      await size.fill('1000');
      await expect(limit.getByText(/Not enough cash/).count()).resolves.toBe(0);
      await expect(limit.getByRole('button', { name: 'Place buy order' }).isEnabled()).resolves.toBe(true);
      // A sell's size is shares, not dollars: the cash check does not apply (the service judges the shares held).
      await limit.getByRole('button', { name: 'Sell' }).click();
      await limit.getByLabel('Size (shares)').fill('5000');
      await expect(limit.getByText(/Not enough cash/).count()).resolves.toBe(0);
      await expect(limit.getByRole('button', { name: 'Place sell order' }).isEnabled()).resolves.toBe(true);
      expect(orders).toBe(0);
      expect(pageErrors(page)).toEqual([]);
    },
  );

  test('when a buy has filled, then its Buy button is off and "New trade" starts the next buy, which trades again', async () => {
    const page = await web.newPage();
    await signUp(page);
    await openFirstMarket(page);
    let trades = 0;
    page.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/trade') trades += 1;
    });
    await page.getByLabel('Amount (virtual dollars)').fill('10');
    await page.getByText(/^Quote: .* YES shares at .* for \$10\.00$/).waitFor();
    const buy = page.getByRole('button', { name: 'Buy YES for $10.00' });
    await buy.click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Bought .* New balance \$990\.00\./ })
      .waitFor();
    // The same trade cannot be sent again: the button is off until a new trade is asked for.
    await expect(buy.isDisabled()).resolves.toBe(true);
    await buy.click({ force: true });
    await page.waitForTimeout(300);
    expect(trades).toBe(1);

    await page.getByRole('button', { name: 'New trade' }).click();
    await expect(
      page
        .getByRole('status')
        .filter({ hasText: /^Bought/ })
        .count(),
    ).resolves.toBe(0);
    await page.getByText(/^Quote: .* YES shares at .* for \$10\.00$/).waitFor();
    await buy.click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Bought .* New balance \$980\.00\./ })
      .waitFor();
    expect(trades).toBe(2);
    const history = (await (await page.request.get('/api/trades')).json()) as { trades: unknown[] };
    expect(history.trades).toHaveLength(2);
    expect(pageErrors(page)).toEqual([]);
  });

  test('when a person states their chance on the live ticket and on a limit order, then it shows on the position and in their record', async () => {
    const page = await web.newPage();
    await signUp(page);
    const question = await openFirstMarket(page);
    const ticket = page.getByRole('region', { name: 'Trade' });
    await ticket.getByLabel('Amount (virtual dollars)').fill('10');
    // Not a chance: the buy waits for a number from 0 to 100 or an empty field.
    await ticket.getByLabel('Your chance of YES (%, optional)').fill('120');
    await ticket.getByText('Enter a number from 0 to 100, or leave it empty.').waitFor();
    await expect(ticket.getByRole('button', { name: 'Buy YES for $10.00' }).isDisabled()).resolves.toBe(true);
    await ticket.getByLabel('Your chance of YES (%, optional)').fill('72.5');
    await ticket.getByText(/^Quote: .* YES shares at .* for \$10\.00$/).waitFor();
    await ticket.getByRole('button', { name: 'Buy YES for $10.00' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Bought .* Your forecast: 72\.5% chance of YES\./ })
      .waitFor();
    const position = page.getByRole('region', { name: 'Your position' });
    await position.getByText(/Your forecast: 72\.5% chance of YES, stated .* when the market was at [\d.]+¢\./).waitFor();

    // A resting limit buy states a newer one.
    const limit = page.getByRole('region', { name: 'Limit order' });
    await limit.getByLabel('Limit price (cents)').fill('1');
    await limit.getByLabel('Size (virtual dollars)').fill('5');
    await limit.getByLabel('Your chance of YES (%, optional)').fill('60');
    await limit.getByRole('button', { name: 'Place buy order' }).click();
    await limit
      .getByRole('status')
      .filter({ hasText: /^Order open at 1\.0¢/ })
      .waitFor();
    await position.getByText(/Your forecast: 60\.0% chance of YES, stated /).waitFor();

    // The service holds both, in the trade's and the order's names, and the person's own profile lists them.
    const me = (await (await page.request.get('/api/user/me')).json()) as { user: { id: string } };
    const listed = (await (await page.request.get('/api/forecasts')).json()) as { forecasts: Array<{ probability: number; source: string; current: boolean }> };
    expect(listed.forecasts.map((f) => [f.probability, f.source, f.current])).toEqual([
      [0.6, 'place_order', true],
      [0.725, 'paper_trade', false],
    ]);
    await page.goto(`/traders/${me.user.id}`);
    const record = page.getByRole('region', { name: 'Your stated forecasts' });
    const rows = record.getByRole('row');
    await rows.nth(2).waitFor();
    expect((await rows.allTextContents()).slice(1).map((t) => t.replace(/\s+/g, ' '))).toEqual([
      expect.stringMatching(new RegExp(`^${question.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}60\\.0% YES[\\d.]+¢.* with a limit order$`)),
      expect.stringMatching(/\(superseded\)72\.5% YES[\d.]+¢.* with a trade$/),
    ]);
    await expectNoSeriousAxeViolations(page);
    expect(pageErrors(page)).toEqual([]);
  });

  test('when a person uses the keyboard alone, then they can sign in, open a market and buy', async () => {
    const page = await web.newPage();
    const person = await signUp(page);
    await signOut(page);
    await page.goto('/signin');
    // The form is a chunk of its own: a person starts tabbing once they see it (60 presses can outrun it on a loaded machine).
    await page.getByLabel('Email').waitFor();
    await tabTo(page, /^Email$/);
    await page.keyboard.type(person.email);
    await tabTo(page, /^Password$/);
    await page.keyboard.type(person.password);
    await page.keyboard.press('Enter');
    await page.getByLabel('Signed in as').waitFor();

    await page.goto('/');
    await page.getByRole('list', { name: 'Markets' }).getByRole('link').first().waitFor();
    await tabTo(page, /^Will /);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Buy NO', exact: true }).waitFor();
    await tabTo(page, /^Buy NO$/);
    await page.keyboard.press('Enter');
    await tabTo(page, /^Amount/);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('7');
    await page.getByText(/^Quote: .* NO shares/).waitFor();
    await tabTo(page, /^Buy NO for \$7\.00$/);
    await page.keyboard.press('Enter');
    await page
      .getByRole('status')
      .filter({ hasText: /^Bought .* NO shares/ })
      .waitFor();
  });

  test('when a person is signed out, then the market page offers sign-in instead of a ticket', async () => {
    const page = await web.newPage();
    await openFirstMarket(page);
    await page.getByRole('region', { name: 'Trade' }).getByRole('link', { name: 'Sign in' }).waitFor();
  });

  test('when the market page and the portfolio are 390 px wide, then nothing scrolls sideways and the trade ticket fits', async () => {
    const page = await web.newPage({ width: 390 });
    await signUp(page);
    await openFirstMarket(page);
    await page.getByRole('img', { name: /YES price/ }).waitFor();
    await expectNoSideScroll(page);
    const box = await page.getByRole('region', { name: 'Trade' }).boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    await page.goto('/portfolio');
    await page.getByRole('heading', { level: 1, name: 'Portfolio' }).waitFor();
    await expectNoSideScroll(page);
  });
});
