import type { Page } from 'playwright-core';
import { MIN_RESOLVED_MARKETS } from '../../src/domain/benchmark/benchmark-record';
import { describeWithChromium, expectNoSeriousAxeViolations, pageErrors, signUp, startWebHarness, type WebHarness } from '../support/browser';
import { browserTrader } from '../support/browser-trader';

/**
 * Issue 53 item 9: a newcomer's profile starts with a plain summary of what they have and what appears after how many
 * resolved forecasts, and figures with nothing behind them collapse into one line per group instead of "— · n 0" tiles.
 */
describeWithChromium('a newcomer’s profile in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness({ background: false });
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  const axeBothSchemes = async (page: Page) => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await expectNoSeriousAxeViolations(page);
    }
  };

  test.each([1280, 390])(
    'when a newcomer at %i px opens their profile, then a summary says what they have and when scores appear, and no empty figure is drawn',
    async (width) => {
      const page = await web.newPage({ width });
      await signUp(page, { displayName: `Newcomer ${width}` });
      const me = await browserTrader(page, web.baseUrl);
      await page.goto(`/traders/${me.id}`);
      const summary = page.getByRole('region', { name: 'Summary' });
      await summary.getByText(/No forecast has resolved yet/).waitFor({ timeout: 20_000 });
      const said = (await summary.textContent())!.replace(/\s+/g, ' ');
      expect(said).toContain('You have $1,000.00 in cash, no trades yet and no settled position.');
      expect(said).toContain('No forecast has resolved yet, so there are no scores to show.');
      expect(said).toContain(`a place on the season board after ${MIN_RESOLVED_MARKETS} resolved markets (${MIN_RESOLVED_MARKETS} to go)`);

      const record = page.getByRole('region', { name: 'Forecasting benchmark' });
      await record.getByText(/^None yet: they appear once a market this account stated a forecast on resolves/).waitFor();
      await record.getByText(/^None yet: they appear once a token this account bought has a price after the fill/).waitFor();
      // No "— · n 0" tile anywhere: the figures with nothing behind them are not drawn.
      await expect(record.getByText(/· n 0$/).count()).resolves.toBe(0);
      await expect(record.getByRole('link', { name: 'Brier', exact: true }).count()).resolves.toBe(0);
      await expect(record.getByRole('link', { name: 'Sortino', exact: true }).count()).resolves.toBe(0);
      await axeBothSchemes(page);
      expect(pageErrors(page)).toEqual([]);
    },
    180_000,
  );
});
