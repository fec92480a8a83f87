import type { Page } from 'playwright-core';
import { resolveMarket, seedMarket } from '../support/markets';
import {
  describeWithChromium,
  expectNoSeriousAxeViolations,
  expectNoSideScroll,
  pageErrors,
  saveScreenshot,
  signUp,
  startWebHarness,
  type WebHarness,
} from '../support/browser';

/**
 * The layout of the field (issue 53 item 8): a header of five links, More, search, cash and an account menu with sign out
 * inside, the page shown marked; a market's chart and ticket above the fold at 1280 × 800 with the position beside the
 * ticket; a resolved market's outcome as a banner; dark mode everywhere, charts included, with a toggle that persists.
 */

/** Relative luminance of an rgb() colour (WCAG), 0 black … 1 white. */
function luminance(rgb: string): number {
  const [r, g, b] = rgb
    .match(/\d+(\.\d+)?/g)!
    .slice(0, 3)
    .map((v) => {
      const c = Number(v) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** The page's drawn background (runs in the page; a string keeps the tsconfig free of DOM types). */
const background = (page: Page) => page.evaluate('getComputedStyle(document.documentElement).backgroundColor') as Promise<string>;

/** How many of the price chart's canvas pixels are within 40 of an rgb colour on each channel: where its line is drawn. */
const pixelsNear = (page: Page, [r, g, b]: [number, number, number]) =>
  page.evaluate(`(() => {
    const canvas = document.querySelector('.chart canvas');
    if (!canvas) return -1;
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let n = 0;
    for (let i = 0; i < data.length; i += 4)
      if (data[i + 3] > 200 && Math.abs(data[i] - ${r}) < 40 && Math.abs(data[i + 1] - ${g}) < 40 && Math.abs(data[i + 2] - ${b}) < 40) n++;
    return n;
  })()`) as Promise<number>;

/** A CSS hex colour as [r, g, b]. */
const rgbOf = (hex: string): [number, number, number] => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];

describeWithChromium('the layout of the web app in Chromium', () => {
  let web: WebHarness;
  let slug: string;
  let resolved: { slug: string; question: string };
  beforeAll(async () => {
    web = await startWebHarness();
    const [row] = await web.app.services.db.query<{ slug: string }>(
      "SELECT slug FROM markets WHERE status = 'active' AND end_date > now() + interval '2 days' ORDER BY volume DESC NULLS LAST, id LIMIT 1",
    );
    slug = row!.slug;
    const m = await seedMarket(web.app.services.db, { question: 'Will the layout test market resolve YES?' });
    await resolveMarket(web.app.services.db, m.id, 'YES');
    resolved = { slug: m.slug, question: 'Will the layout test market resolve YES?' };
  }, 180_000);
  afterAll(async () => {
    await web?.close();
  }, 180_000);

  test('when a person is signed in at 1280 px, then the header is one row of five links and More, search, cash and an account menu, with the page shown marked', async () => {
    const page = await web.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    const person = await signUp(page);
    await page.goto('/portfolio');
    const nav = page.getByRole('navigation', { name: 'Main' });
    // The brand, five pages and More: nothing else asks for a click in the header's navigation.
    await expect(nav.getByRole('link').allTextContents()).resolves.toEqual(['Paper Markets', 'Markets', 'Community', 'Portfolio', 'Leaderboard', 'Benchmark']);
    await expect(nav.getByRole('button').allTextContents()).resolves.toEqual(['More']);
    await expect(nav.getByRole('link', { name: 'Portfolio' }).getAttribute('aria-current')).resolves.toBe('page');
    await expect(nav.locator('[aria-current="page"]').count()).resolves.toBe(1);
    // One row: the header is about as tall as one line of its controls.
    const header = (await page.locator('header.site-header').boundingBox())!;
    expect(header.height).toBeLessThan(70);
    await expect(page.getByLabel('Available cash').isVisible()).resolves.toBe(true);

    // Sign out is in the account menu, not a button of the header.
    const signOut = page.getByRole('button', { name: 'Sign out' });
    await expect(signOut.isVisible()).resolves.toBe(false);
    const menu = page.getByRole('button', { name: 'Account menu' });
    await expect(menu.getAttribute('aria-expanded')).resolves.toBe('false');
    await expect(page.getByLabel('Signed in as').textContent()).resolves.toBe(person.displayName);
    await menu.click();
    await expect(menu.getAttribute('aria-expanded')).resolves.toBe('true');
    await expect(signOut.isVisible()).resolves.toBe(true);
    await expect(page.getByRole('link', { name: 'My profile' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('link', { name: /^Notifications/ }).isVisible()).resolves.toBe(true);
    await page.keyboard.press('Escape');
    await expect(signOut.isVisible()).resolves.toBe(false);
    await expect(page.evaluate('document.activeElement.getAttribute("aria-label")')).resolves.toBe('Account menu');

    // Every other page under More; the one shown is marked there, and More with it.
    await nav.getByRole('button', { name: 'More' }).click();
    await nav.getByRole('link', { name: 'Replay board' }).click();
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/replay/suite');
    await expect(nav.getByRole('button', { name: 'More' }).getAttribute('class')).resolves.toContain('current');
    await nav.getByRole('button', { name: 'More' }).click();
    await expect(nav.getByRole('link', { name: 'Replay board' }).getAttribute('aria-current')).resolves.toBe('page');
    await expect(nav.getByRole('link', { name: 'Replay', exact: true }).getAttribute('aria-current')).resolves.toBeNull();
    for (const name of ['Watchlist', 'Replay', 'Challenge', 'Agents']) await nav.getByRole('link', { name, exact: true }).waitFor();
    // A click elsewhere closes it.
    await page.getByRole('heading', { level: 1 }).click();
    await expect(nav.getByRole('link', { name: 'Watchlist' }).isVisible()).resolves.toBe(false);

    // The header's search opens the markets' results for the term.
    await page.getByRole('search', { name: 'Markets' }).getByLabel('Find a market').fill('market');
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname === '/' && u.searchParams.get('q') === 'market');
    await page.getByRole('heading', { level: 2, name: 'Results for “market”' }).waitFor();
    await expect(nav.getByRole('link', { name: 'Markets', exact: true }).getAttribute('aria-current')).resolves.toBe('page');
    await expectNoSeriousAxeViolations(page);

    await menu.click();
    await signOut.click();
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    expect((await page.request.get('/api/user/balance')).status()).toBe(401);
    expect(pageErrors(page)).toEqual([]);
  }, 180_000);

  test('when a person is signed in at 390 px, then the tab bar takes the links, and the account menu still holds sign out', async () => {
    const page = await web.newPage({ width: 390 });
    await signUp(page);
    await page.goto('/leaderboard');
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Leaderboard' }).isVisible()).resolves.toBe(false);
    await expect(page.getByRole('search', { name: 'Markets' }).isVisible()).resolves.toBe(false);
    const tabs = page.getByRole('navigation', { name: 'Tabs' });
    await expect(tabs.getByRole('link', { name: 'Leaderboard' }).getAttribute('aria-current')).resolves.toBe('page');
    await tabs.getByRole('button', { name: 'More' }).click();
    await tabs.getByRole('link', { name: 'Watchlist' }).waitFor();
    await expectNoSideScroll(page);
    await page.getByRole('button', { name: 'Account menu' }).click();
    await expect(page.getByRole('button', { name: 'Sign out' }).isVisible()).resolves.toBe(true);
    await expectNoSeriousAxeViolations(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    expect(pageErrors(page)).toEqual([]);
  }, 180_000);

  test('when a person holding a position opens the market at 1280 × 800, then the chart and the ticket are above the fold and the position sits beside the ticket', async () => {
    const page = await web.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });
    await signUp(page);
    await page.goto(`/markets/${slug}`);
    await page.getByRole('button', { name: 'Buy YES', exact: true }).click();
    await page.getByLabel('Amount (virtual dollars)').fill('20');
    await page.getByRole('button', { name: 'Buy YES for $20.00' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Bought/ })
      .waitFor();
    await page.goto(`/markets/${slug}`);
    const chart = page.getByRole('img', { name: /YES price over/ });
    await chart.locator('canvas').first().waitFor();
    const ticket = page.getByRole('region', { name: 'Trade' });
    const position = page.getByRole('region', { name: 'Your position' });
    await position.getByText(/YES/).first().waitFor();
    const [c, t, p] = [(await chart.boundingBox())!, (await ticket.boundingBox())!, (await position.boundingBox())!];
    // The whole chart, and the ticket's top with its buy buttons, within the first 800 px, side by side.
    expect(c.y + c.height).toBeLessThanOrEqual(800);
    expect(t.y).toBeLessThan(400);
    expect(t.x).toBeGreaterThan(c.x + c.width);
    await expect(
      ticket
        .getByRole('button', { name: /^Buy YES for/ })
        .boundingBox()
        .then((b) => b!.y + b!.height),
    ).resolves.toBeLessThanOrEqual(800);
    // The position is the next thing under the ticket, in its column, and starts above the fold.
    expect(Math.abs(p.x - t.x)).toBeLessThan(2);
    expect(p.y - (t.y + t.height)).toBeLessThan(40);
    expect(p.y).toBeLessThan(800);
    await expectNoSeriousAxeViolations(page);
    await saveScreenshot(page, 'market');
    expect(pageErrors(page)).toEqual([]);
  }, 180_000);

  for (const width of [1280, 390]) {
    test(`when a resolved market opens at ${width} px, then its outcome is a banner at the top, in light and dark`, async () => {
      const page = await web.newPage({ width });
      await page.goto(`/markets/${resolved.slug}`);
      await page.getByRole('heading', { level: 1, name: resolved.question }).waitFor();
      const banner = page.getByRole('status').filter({ has: page.getByRole('heading', { name: 'Resolved: YES' }) });
      await banner.waitFor();
      await expect(banner.textContent()).resolves.toMatch(/Each YES share paid \$1; each NO share paid nothing\. Resolved .+; trading has ended\./);
      // At the top: right under the question, above the fold.
      const b = (await banner.boundingBox())!;
      expect(b.y + b.height).toBeLessThan(width < 600 ? 844 : 900);
      await expect(page.getByRole('button', { name: /^Buy YES/ }).count()).resolves.toBe(0);
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        await expectNoSeriousAxeViolations(page);
      }
      if (width < 600) await expectNoSideScroll(page);
      expect(pageErrors(page)).toEqual([]);
    }, 180_000);
  }

  test('when the system asks for dark, then every part is dark, the chart included; the toggle makes light stick across reloads, and a new visitor follows the system', async () => {
    const page = await web.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`/markets/${slug}`);
    await page
      .getByRole('img', { name: /YES price over/ })
      .locator('canvas')
      .first()
      .waitFor();
    const toggle = page.getByRole('button', { name: 'Dark mode' });
    // By default the system's scheme: dark, nothing stored.
    await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('true');
    await expect(page.evaluate('localStorage.getItem("theme")')).resolves.toBeNull();
    expect(luminance(await background(page))).toBeLessThan(0.05);
    // The chart's panel is the page's dark card, and its line is drawn in dark mode's green, not light mode's.
    const panel = (await page.evaluate(`getComputedStyle(document.querySelector('section[aria-labelledby="chart-heading"]')).backgroundColor`)) as string;
    expect(luminance(panel)).toBeLessThan(0.05);
    // (A few of the bright line's antialiased edge pixels on the dark card come near the light green: not a line of it.)
    const darkLine = await pixelsNear(page, rgbOf('#5fd08f'));
    expect(darkLine).toBeGreaterThan(50);
    await expect(pixelsNear(page, rgbOf('#0b6b3a'))).resolves.toBeLessThan(darkLine / 10);
    await expectNoSeriousAxeViolations(page);
    await saveScreenshot(page, 'market-dark');

    // The toggle: light, the chart drawn again in light mode's green, and kept.
    await toggle.click();
    await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('false');
    expect(luminance(await background(page))).toBeGreaterThan(0.9);
    // Drawn again on the next frame after the change.
    await page.waitForFunction(`document.documentElement.dataset.theme === 'light'`);
    await page.waitForTimeout(300);
    const lightLine = await pixelsNear(page, rgbOf('#0b6b3a'));
    expect(lightLine).toBeGreaterThan(50);
    await expect(pixelsNear(page, rgbOf('#5fd08f'))).resolves.toBeLessThan(lightLine / 10);
    await expect(page.evaluate('localStorage.getItem("theme")')).resolves.toBe('light');
    await page.reload();
    await page.getByRole('heading', { level: 1 }).waitFor();
    await expect(page.evaluate('document.documentElement.dataset.theme')).resolves.toBe('light');
    expect(luminance(await background(page))).toBeGreaterThan(0.9);
    await expect(page.getByRole('button', { name: 'Dark mode' }).getAttribute('aria-pressed')).resolves.toBe('false');
    await expectNoSeriousAxeViolations(page);

    // And back to dark, on the phone's width too, on a page with SVG charts: their panels follow.
    await page.getByRole('button', { name: 'Dark mode' }).click();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/benchmark/metrics');
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(luminance(await background(page))).toBeLessThan(0.05);
    await expectNoSeriousAxeViolations(page);
    await expectNoSideScroll(page);

    // Another visitor, with nothing stored, follows their system: light.
    const other = await web.newPage({ width: 390 });
    await other.emulateMedia({ colorScheme: 'light' });
    await other.goto('/');
    await other.getByRole('heading', { level: 1 }).waitFor();
    expect(luminance(await background(other))).toBeGreaterThan(0.9);
    await expect(other.getByRole('button', { name: 'Dark mode' }).getAttribute('aria-pressed')).resolves.toBe('false');
    expect(pageErrors(page)).toEqual([]);
    expect(pageErrors(other)).toEqual([]);
  }, 240_000);
});
