import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { PATHS } from '../../web/src/lib/paths';
import { ROOT } from '../support/web-build';
import { everyPage, openPage, useTheApp, type UsedAccount } from '../support/every-page';
import { describeWithChromium, pageErrors, saveScreenshot, signUp, startWebHarness, type WebHarness } from '../support/browser';

/** The phone layout (issue 36 item 3): bottom tabs, the market page's buy bar, tables as cards, no sideways scroll. */

/** Runs in the page; strings keep the service's tsconfig free of DOM types. */
const widths = (page: Page) =>
  page.evaluate('({ scrollWidth: document.scrollingElement.scrollWidth, innerWidth: window.innerWidth })') as Promise<{
    scrollWidth: number;
    innerWidth: number;
  }>;

const inViewport = (page: Page, selector: string) =>
  page.evaluate(`(() => {
    const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight;
  })()`) as Promise<boolean>;

const tabs = (page: Page) => page.getByRole('navigation', { name: 'Tabs' });

describeWithChromium('the phone layout in Chromium', () => {
  let web: WebHarness;
  let phone: Page;
  let used: UsedAccount;
  beforeAll(async () => {
    web = await startWebHarness();
    phone = await web.newPage({ width: 390 });
    await signUp(phone);
    used = await useTheApp(phone, web.baseUrl);
  }, 180_000);
  afterAll(async () => {
    await web?.close();
  });

  test('when every page of the route table is opened at 390 px, then none is wider than the screen and the tab bar is on it', async () => {
    // The list covers the route table: a new page joins this test.
    const routed = [...fs.readFileSync(path.join(ROOT, 'web/src/app/routes.tsx'), 'utf8').matchAll(/path: PATHS\.(\w+)/g)].map(
      (m) => PATHS[m[1] as keyof typeof PATHS],
    );
    const pages = everyPage(used);
    expect(pages.map((p) => p.pattern).sort()).toEqual([...routed].sort());
    for (const { path: at } of pages) {
      await openPage(phone, at);
      const { scrollWidth, innerWidth } = await widths(phone);
      expect({ at, scrollWidth }).toEqual({ at, scrollWidth: Math.min(scrollWidth, innerWidth) });
      await expect(tabs(phone).isVisible()).resolves.toBe(true);
      // The header keeps the brand and the account; its page links are the tab bar's now.
      await expect(phone.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Portfolio' }).isVisible()).resolves.toBe(false);
    }
    expect(pageErrors(phone)).toEqual([]);
  }, 180_000);

  test('when a person taps the tabs and More at 390 px, then each opens its page and marks itself current', async () => {
    await openPage(phone, '/');
    for (const [tab, heading] of [
      ['Portfolio', 'Portfolio'],
      ['Leaderboard', 'Leaderboards'],
      ['Notifications', 'Notifications'],
      ['Markets', 'Prediction markets'],
    ] as const) {
      const link = tabs(phone).getByRole('link', { name: new RegExp(`^${tab}`) });
      await link.click();
      await phone.getByRole('heading', { level: 1, name: heading }).waitFor();
      await expect(link.getAttribute('aria-current')).resolves.toBe('page');
      await expect(tabs(phone).locator('[aria-current="page"]').count()).resolves.toBe(1);
    }
    const more = tabs(phone).getByRole('button', { name: 'More' });
    await expect(more.getAttribute('aria-expanded')).resolves.toBe('false');
    await expect(tabs(phone).getByRole('link', { name: 'Settings' }).isVisible()).resolves.toBe(false);
    await more.click();
    await expect(more.getAttribute('aria-expanded')).resolves.toBe('true');
    await tabs(phone).getByRole('link', { name: 'Settings' }).click();
    await phone.getByRole('heading', { level: 1, name: 'Account settings' }).waitFor();
    // The page chosen closes the menu.
    await expect(more.getAttribute('aria-expanded')).resolves.toBe('false');
    await expect(tabs(phone).getByRole('link', { name: 'Settings' }).isVisible()).resolves.toBe(false);
  });

  test('when a person taps the buy bar of a market page at 390 px, then it stays above the tabs and opens the ticket on that outcome, and a buy goes through', async () => {
    await openPage(phone, `/markets/${used.market.slug}`);
    await phone.getByRole('img', { name: /YES price/ }).waitFor();
    const bar = phone.getByRole('group', { name: 'Buy' });
    await expect(bar.isVisible()).resolves.toBe(true);
    // Sticky: at the top of the page the bar is on screen, just above the tab bar; the ticket is further down.
    const barBox = (await bar.boundingBox())!;
    const tabBox = (await tabs(phone).boundingBox())!;
    expect(barBox.y + barBox.height).toBeLessThanOrEqual(tabBox.y + 1);
    expect(barBox.y).toBeGreaterThan(tabBox.y - 120);
    const amount = phone.getByRole('region', { name: 'Trade' }).getByLabel('Amount (virtual dollars)');
    await expect(inViewport(phone, '.ticket input')).resolves.toBe(false);
    await saveScreenshot(phone, 'phone-market');

    await bar.getByRole('button', { name: /^Buy NO · \d/ }).click();
    await expect(phone.evaluate('document.activeElement.id')).resolves.toBe(await amount.getAttribute('id'));
    await expect(inViewport(phone, '.ticket input')).resolves.toBe(true);
    const ticket = phone.getByRole('region', { name: 'Trade' });
    await expect(ticket.getByRole('button', { name: 'Buy NO', exact: true }).getAttribute('aria-pressed')).resolves.toBe('true');
    // The ticket's quick amounts, available cash and payout (issue 36 item 5).
    await ticket.getByRole('group', { name: 'Quick amounts' }).getByRole('button', { name: '$25', exact: true }).click();
    await expect(amount.inputValue()).resolves.toBe('25');
    const quote = (await ticket.getByText(/^Quote: .* NO shares at .* for \$25\.00$/).textContent())!;
    const bought = Number(/^Quote: ([\d,.]+) NO/.exec(quote)![1]!.replace(/,/g, ''));
    // A NO share pays $1 if NO: the payout is the share count, the return (shares − 25) / 25.
    const payout = /^Pays \$([\d,.]+) if NO \(([+−])(\d+\.\d)%\)$/.exec((await ticket.locator('.payout').textContent())!);
    expect(payout).not.toBeNull();
    expect(Number(payout![1]!.replace(/,/g, ''))).toBeCloseTo(bought, 1);
    expect(Number(payout![3]) * (payout![2] === '−' ? -1 : 1)).toBeCloseTo(((bought - 25) / 25) * 100, 0);
    const cash = (await phone.getByLabel('Available cash').textContent())!;
    await expect(ticket.getByText(/^Available cash: /).textContent()).resolves.toBe(`Available cash: ${cash}`);
    await ticket.getByRole('button', { name: 'Max', exact: true }).click();
    await expect(amount.inputValue()).resolves.toBe(cash.replace(/[$,]/g, '').replace(/\.?0+$/, ''));
    await amount.fill('12');
    await ticket.getByText(/^Quote: .* NO shares at .* for \$12\.00$/).waitFor();
    await ticket.getByRole('button', { name: 'Buy NO for $12.00' }).click();
    await ticket
      .getByRole('status')
      .filter({ hasText: /^Bought .* NO shares at / })
      .waitFor();

    // The YES side of the bar switches the ticket back.
    await bar.getByRole('button', { name: /^Buy YES · \d/ }).click();
    await expect(ticket.getByRole('button', { name: 'Buy YES', exact: true }).getAttribute('aria-pressed')).resolves.toBe('true');
    expect(pageErrors(phone)).toEqual([]);
  });

  test('when the portfolio and a leaderboard are 390 px wide, then their tables are cards: every cell labelled, nothing cut off, still tables to a screen reader', async () => {
    const shown: Record<string, () => Promise<void>> = {
      '/portfolio': async () => {
        await phone
          .getByRole('region', { name: 'Trade history' })
          .getByRole('cell', { name: /Buy YES/ })
          .first()
          .waitFor();
        await phone.getByRole('region', { name: 'Order history' }).getByRole('row').nth(1).waitFor();
      },
      // The person's $100 puts them on the volume board.
      '/leaderboard': async () => {
        await phone.getByLabel('Metric').selectOption('volume');
        await phone.getByLabel('Audience').selectOption('everyone');
        await phone.getByRole('row').nth(1).waitFor();
      },
    };
    for (const [where, ready] of Object.entries(shown)) {
      await openPage(phone, where);
      await ready();
      // Each card (a body row) stacks its cells, each with its column's name before it, inside the screen.
      const cards = (await phone.evaluate(`[...document.querySelectorAll('table.cards tbody tr')].map((tr) => {
        const r = tr.getBoundingClientRect();
        const cells = [...tr.children];
        return {
          display: getComputedStyle(tr).display,
          right: r.right,
          labels: cells.map((td) => getComputedStyle(td, '::before').content),
          lefts: [...new Set(cells.map((td) => Math.round(td.getBoundingClientRect().left)))].length,
        };
      })`)) as { display: string; right: number; labels: string[]; lefts: number }[];
      expect(cards.length).toBeGreaterThan(0);
      for (const card of cards) {
        expect(card.display).toBe('block');
        expect(card.right).toBeLessThanOrEqual(390);
        expect(card.lefts).toBe(1);
        for (const label of card.labels) expect(label).toMatch(/^".+"$/);
      }
      // Screen readers still read rows with their column headers.
      await expect(phone.getByRole('columnheader').count()).resolves.toBeGreaterThan(0);
    }
    await expect(phone.getByRole('row').count()).resolves.toBeGreaterThan(1);
  });

  test('when the screen is 1280 px wide, then there is no tab bar and no buy bar, and the header has its links', async () => {
    const page = await web.newPage({ width: 1280 });
    await openPage(page, `/markets/${used.market.slug}`);
    await expect(page.getByRole('navigation', { name: 'Tabs' }).isVisible()).resolves.toBe(false);
    await expect(page.getByRole('group', { name: 'Buy' }).isVisible()).resolves.toBe(false);
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Portfolio' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Leaderboard' }).isVisible()).resolves.toBe(true);
  });
});
