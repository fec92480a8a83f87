import type { Page } from 'playwright-core';
import { seedMarket } from '../support/markets';
import { describeWithChromium, expectNoSeriousAxeViolations, pageErrors, signUp, startWebHarness, type WebHarness } from '../support/browser';

/**
 * Issue 53 item 10: community markets as Manifold shows them. The creator sets the opening chances; list cards carry the
 * chance and the volume; the market page lists its holders; the category field offers the catalogue's categories.
 */
describeWithChromium('community market cards, opening chances and holders in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness({ background: false });
    // A catalogue market, so the catalogue has a category to offer.
    await seedMarket(web.app.services.db, { category: 'Harbour Life' });
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  const axeBothSchemes = async (page: Page) => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await expectNoSeriousAxeViolations(page);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  };

  test.each([1280, 390])(
    'when a person at %i px creates a market opening at 70 % Yes, then the list card shows 70 % and its volume, and its page lists the holders after a buy',
    async (width) => {
      const page = await web.newPage({ width });
      await signUp(page);
      const question = `Will the pier cafe open by spring (${width} px)?`;
      await page.goto('/community-markets');
      await page.getByRole('button', { name: 'Create a market' }).click();
      await page.getByLabel('Question', { exact: true }).fill(question);
      // The category field offers the catalogue's categories.
      const category = page.getByLabel('Category', { exact: true });
      await expect(category.getAttribute('list')).resolves.toBe('catalogue-categories');
      const catalogue = (await (await page.request.get('/api/markets/categories')).json()) as { categories: Array<{ category: string }> };
      expect(catalogue.categories.map((c) => c.category)).toContain('Harbour Life');
      const options = page.locator('#catalogue-categories option');
      await options.first().waitFor({ state: 'attached' });
      const offered = await Promise.all((await options.all()).map((o) => o.getAttribute('value')));
      expect(offered).toEqual(catalogue.categories.map((c) => c.category));
      await category.fill('Harbour Life');
      await page.getByLabel('End date').fill('2031-01-01T00:00');
      // Chances that do not add up to 100 % are refused before sending.
      await page.getByLabel('Opening chance of Yes (%)').fill('70');
      await page.getByLabel('Opening chance of No (%)').fill('20');
      await page.getByRole('button', { name: /Create market/ }).click();
      await page.getByText(/adding up to 100 %, or leave them all blank for even odds/).waitFor();
      await axeBothSchemes(page);
      await page.getByLabel('Opening chance of No (%)').fill('30');
      await page.getByRole('button', { name: /Create market/ }).click();
      await page.getByRole('heading', { level: 1, name: question }).waitFor();
      await expect(page.getByRole('list', { name: 'Outcomes' }).getByRole('listitem').allTextContents()).resolves.toEqual(['Yes · 70.0¢', 'No · 30.0¢']);
      const holders = page.getByRole('table', { name: 'Holders' });
      await expect(holders.getByRole('row').allTextContents()).resolves.toEqual(['OutcomeHoldersShares held', 'Yes00', 'No00']);

      // Another person buys 25 dollars of No: the holders table and the card follow.
      const buyer = await web.newPage({ width });
      await signUp(buyer);
      const market = (await (await buyer.request.get(`/api/user-markets/${page.url().split('/').pop()}`)).json()) as {
        id: string;
        outcomeTokens: Array<{ tokenId: string; outcome: string }>;
      };
      const bought = await buyer.request.post('/api/user-markets/trade', {
        headers: { Origin: web.baseUrl },
        data: { tokenId: market.outcomeTokens[1]!.tokenId, amount: 25 },
      });
      expect(bought.status()).toBe(200);
      const quantity = ((await bought.json()) as { quantity: number }).quantity;
      await page.reload();
      await holders.waitFor();
      const noRow = holders.getByRole('row', { name: /^No/ });
      await expect(noRow.getByRole('cell').allTextContents()).resolves.toEqual([
        '1',
        new Intl.NumberFormat('en-US', { maximumFractionDigits: 4 }).format(quantity),
      ]);
      await axeBothSchemes(page);

      await page.goto('/community-markets');
      const card = page.getByRole('listitem').filter({ has: page.getByRole('link', { name: question }) });
      const after = (await (await page.request.get(`/api/user-markets/${market.id}`)).json()) as { outcomeTokens: Array<{ price: number }> };
      // A Yes/No card shows the chance of Yes as it stands now, and what has traded.
      await expect(card.getByLabel('Chance of Yes').textContent()).resolves.toBe(`${(after.outcomeTokens[0]!.price * 100).toFixed(1)}% Yes`);
      await expect(card.getByLabel('Volume').textContent()).resolves.toBe('$25.00 vol.');
      await axeBothSchemes(page);
      expect(pageErrors(page)).toEqual([]);
    },
    180_000,
  );
});
