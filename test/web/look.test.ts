import type { Page } from 'playwright-core';
import { everyPage, openPage, useTheApp, type UsedAccount } from '../support/every-page';
import { describeWithChromium, expectNoSeriousAxeViolations, pageErrors, signUp, startWebHarness, type WebHarness } from '../support/browser';

/** The look (issue 36 item 9): dark mode after the system setting, axe in both schemes, returns and allocation. */

/** The page's background and text colours as drawn (runs in the page; a string keeps the tsconfig free of DOM types). */
const colours = (page: Page) =>
  page.evaluate('({ bg: getComputedStyle(document.documentElement).backgroundColor, fg: getComputedStyle(document.body).color })') as Promise<{
    bg: string;
    fg: string;
  }>;

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

describeWithChromium('the look of the web app in Chromium', () => {
  let web: WebHarness;
  let used: UsedAccount;
  const pages: Record<number, Page> = {};
  beforeAll(async () => {
    web = await startWebHarness();
    for (const width of [1280, 390]) pages[width] = await web.newPage({ width });
    await signUp(pages[1280]!);
    used = await useTheApp(pages[1280]!, web.baseUrl);
    // The phone shares the person's session.
    await pages[390]!.context().addCookies(await pages[1280]!.context().cookies());
  }, 180_000);
  afterAll(async () => {
    await web?.close();
  });

  test('when the system asks for dark, then the app is dark; for light, light', async () => {
    const page = pages[1280]!;
    await page.emulateMedia({ colorScheme: 'dark' });
    await openPage(page, '/portfolio');
    const dark = await colours(page);
    expect(luminance(dark.bg)).toBeLessThan(0.05);
    expect(luminance(dark.fg)).toBeGreaterThan(0.6);
    await page.emulateMedia({ colorScheme: 'light' });
    const light = await colours(page);
    expect(luminance(light.bg)).toBeGreaterThan(0.9);
    expect(luminance(light.fg)).toBeLessThan(0.05);
  });

  // Each scheme on every page, each width once (a pass over every page costs about a minute of CI): dark where the phone's
  // own parts (tab bar, buy bar) are drawn, light at the width every other browser suite also checks with axe.
  const passes: Array<[number, 'light' | 'dark']> = [
    [390, 'dark'],
    [1280, 'light'],
  ];
  for (const [width, colorScheme] of passes) {
    test(`when every page is drawn ${colorScheme} at ${width} px, then axe finds no serious or critical violation`, async () => {
      const page = pages[width]!;
      await page.emulateMedia({ colorScheme });
      for (const { path } of everyPage(used)) {
        await openPage(page, path);
        try {
          await expectNoSeriousAxeViolations(page);
        } catch (e) {
          throw new Error(`${path}: ${(e as Error).message}`);
        }
      }
      expect(pageErrors(page)).toEqual([]);
    }, 480_000);
  }

  test('when a person holds a position, then the portfolio shows its return and its share of equity, as worked from shares and prices', async () => {
    const page = pages[1280]!;
    await openPage(page, '/portfolio');
    const body = (await (await page.request.get('/api/positions')).json()) as {
      positions: { quantity: number; avgPrice: number; currentPrice: number | null; isClosed: boolean }[];
      totals: { cash: number; poolFunding: number };
    };
    const open = body.positions.filter((p) => !p.isClosed);
    expect(open).toHaveLength(1);
    const p = open[0]!;
    // Independently of the app: value = shares × mark, return = mark / average − 1, allocation = value / equity, where
    // equity = cash + value + the funding of one's own community markets (issue 53 item 4: funding is an asset).
    const value = p.quantity * p.currentPrice!;
    const expectedReturn = p.currentPrice! / p.avgPrice - 1;
    const expectedAllocation = value / (body.totals.cash + value + body.totals.poolFunding);
    const fact = (term: string) =>
      page
        .getByRole('region', { name: 'Open positions' })
        .locator('.position-facts div')
        .filter({ has: page.locator('dt', { hasText: new RegExp(`^${term}$`) }) })
        .locator('dd');
    const shownReturn = (await fact('Return').textContent())!;
    const shownAllocation = (await fact('Allocation').textContent())!;
    expect(shownReturn).toMatch(/^([+−]\d+\.\d|0\.0)%$/);
    expect(shownAllocation).toMatch(/^\d+\.\d%$/);
    expect(Number(shownReturn.replace('−', '-').replace('%', ''))).toBeCloseTo(expectedReturn * 100, 0);
    expect(Number(shownAllocation.replace('%', ''))).toBeCloseTo(expectedAllocation * 100, 0);
    // $100 of $1,000 is about a tenth of equity.
    expect(expectedAllocation).toBeGreaterThan(0.05);
    expect(expectedAllocation).toBeLessThan(0.15);
  });
});
