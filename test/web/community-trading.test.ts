import type { Page } from 'playwright-core';
import {
  describeWithChromium,
  expectNoSeriousAxeViolations,
  expectNoSideScroll,
  pageErrors,
  signUp,
  startWebHarness,
  type WebHarness,
} from '../support/browser';

/** The paths of the trading calls (POST) a page makes from now on: the app trades a community market as any other. */
function tradingCalls(page: Page): string[] {
  const calls: string[] = [];
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (r.method() === 'POST' && /^\/api\/(trade|positions|user-markets)\b/.test(path)) calls.push(path.replace(/\/positions\/[^/]+\//, '/positions/{id}/'));
  });
  return calls;
}

/** A community market traded in Chromium: prices, the trade ticket against its market maker, the chart. */
describeWithChromium('community market trading in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness({ background: false });
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  test('when a person buys an outcome on a community market page, then the quote shows the price impact, the fill is shown, and the prices and chart move', async () => {
    const creator = await web.newPage();
    await signUp(creator, { displayName: 'Pool Maker' });
    const made = await creator.request.post('/api/user-markets', {
      headers: { Origin: web.baseUrl },
      data: {
        question: 'Will the lighthouse museum reopen by June?',
        category: 'Local',
        outcomes: ['Yes', 'No'],
        endDate: new Date(Date.now() + 7 * 86400_000).toISOString(),
        liquidity: 100,
      },
    });
    expect(made.status()).toBe(200);
    const market = (await made.json()) as { slug: string };

    const page = await web.newPage();
    await signUp(page, { displayName: 'Ticket Buyer' });
    const calls = tradingCalls(page);
    await page.goto(`/community-markets/${market.slug}`);
    await page.getByRole('heading', { level: 1, name: 'Will the lighthouse museum reopen by June?' }).waitFor();
    await expect(page.getByRole('list', { name: 'Outcomes' }).getByRole('listitem').allTextContents()).resolves.toEqual(['Yes · 50.0¢', 'No · 50.0¢']);
    await page.getByRole('heading', { level: 2, name: 'Yes price' }).waitFor();
    await page.getByRole('img', { name: /Yes price over 1w: from 50\.0¢ to 50\.0¢, 1 points/ }).waitFor();
    await expectNoSeriousAxeViolations(page);

    await page.getByRole('button', { name: 'Buy Yes · 50.0¢' }).click();
    await page.getByLabel('Amount (virtual dollars)').fill('40');
    await page.getByText(/Quote: .* Yes shares at an average .* for \$40\.00; the price moves from 50\.0¢ to /).waitFor();
    await page.getByRole('button', { name: 'Buy Yes for $40.00' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /Bought .* Yes shares at an average .* for \$40\.00\. New balance \$960\.00\./ })
      .waitFor();

    // The page reads the market again: Yes now costs more than No, and the chart has the trade's point.
    const items = page.getByRole('list', { name: 'Outcomes' }).getByRole('listitem');
    await page.waitForFunction(`!document.querySelector('ul[aria-label="Outcomes"] li')?.textContent?.includes('50.0¢')`);
    const [yes, no] = (await items.allTextContents()).map((t) => Number(/([\d.]+)¢/.exec(t)![1]));
    expect(yes).toBeGreaterThan(50);
    expect(yes! + no!).toBeCloseTo(100, 0);
    await page.getByRole('img', { name: /Yes price over 1w: from 50\.0¢ to .*, 2 points/ }).waitFor();
    await page.getByText(/volume \$40\.00 · 1 trades/).waitFor();

    // The position is in the portfolio like any other.
    const positions = (await (await page.request.get('/api/positions')).json()) as { positions: Array<{ outcomeLabel?: string; marketSlug: string }> };
    expect(positions.positions[0]).toMatchObject({ outcomeLabel: 'Yes', marketSlug: market.slug });
    // Quoted and bought by quote_trade and paper_trade, which tell the venue from the token (not by the deprecated aliases).
    expect([...new Set(calls)].sort()).toEqual(['/api/trade', '/api/trade/quote']);
    expect(pageErrors(page)).toEqual([]);
  });

  /** A Yes/No community market made over REST by a new signed-in person, funded with $100; its slug. */
  async function newCommunityMarket(question: string): Promise<string> {
    const creator = await web.newPage();
    await signUp(creator, { displayName: 'Pool Maker' });
    const made = await creator.request.post('/api/user-markets', {
      headers: { Origin: web.baseUrl },
      data: { question, category: 'Local', outcomes: ['Yes', 'No'], endDate: new Date(Date.now() + 7 * 86400_000).toISOString(), liquidity: 100 },
    });
    expect(made.status()).toBe(200);
    return ((await made.json()) as { slug: string }).slug;
  }

  async function openPositions(page: Page): Promise<Array<{ quantity: number; outcomeLabel?: string; isClosed: boolean }>> {
    const body = (await (await page.request.get('/api/positions')).json()) as {
      positions: Array<{ quantity: number; outcomeLabel?: string; isClosed: boolean }>;
    };
    return body.positions.filter((p) => !p.isClosed);
  }

  for (const width of [1280, 390]) {
    test(`when a person holds community shares at ${width} px, then they sell part from the portfolio and the rest from the market page, beside the ticket`, async () => {
      const question = `Will the ferry run at ${width} on Sundays?`;
      const slug = await newCommunityMarket(question);
      const page = await web.newPage({ width });
      await signUp(page, { displayName: `Seller ${width}` });
      const calls = tradingCalls(page);

      // Bought on the market page: the position appears beside the ticket.
      await page.goto(`/community-markets/${slug}`);
      await page.getByRole('heading', { level: 1, name: question }).waitFor();
      const position = page.getByRole('region', { name: 'Your position' });
      await position.getByText('You hold no shares of this market.').waitFor();
      await page.getByRole('button', { name: 'Buy Yes · 50.0¢' }).click();
      // More than the cash is refused as it is typed.
      await page.getByLabel('Amount (virtual dollars)').fill('1000.01');
      await page.getByText('Not enough cash: $1,000.01 is more than the $1,000.00 available.').waitFor();
      await expect(page.getByRole('button', { name: 'Buy Yes for $1,000.01' }).isDisabled()).resolves.toBe(true);
      await page.getByLabel('Amount (virtual dollars)').fill('40');
      await page.getByText(/Quote: .* Yes shares at an average .* for \$40\.00/).waitFor();
      await page.getByRole('button', { name: 'Buy Yes for $40.00' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /Bought .* Yes shares/ })
        .waitFor();
      // The fill keeps Buy off until a new trade is asked for.
      await expect(page.getByRole('button', { name: 'Buy Yes for $40.00' }).isDisabled()).resolves.toBe(true);
      await page.getByRole('button', { name: 'New trade' }).waitFor();
      await position.getByText(/Yes shares, bought at .* on average/).waitFor();
      const [bought] = await openPositions(page);
      expect(bought).toMatchObject({ outcomeLabel: 'Yes' });
      const held = bought!.quantity;

      // The portfolio sells half through the community market's own quote and sale.
      await page.goto('/portfolio');
      await page.getByRole('button', { name: `Sell Yes shares of ${question}` }).click();
      const half = (Math.floor((held / 2) * 100) / 100).toFixed(2);
      await page.getByLabel(/Shares to sell/).fill(half);
      await page
        .getByRole('status')
        .filter({ hasText: /Quote: [\d.]+ shares? at an average [\d.]+¢ → \$/ })
        .waitFor();
      await page.getByRole('button', { name: 'Confirm sale' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /Sold .* shares? at .* for \$[\d.]+ \(realized .*\)\. New balance \$9\d\d\.\d\d\./ })
        .waitFor();
      await expect(page.getByText(/not found/i).count()).resolves.toBe(0);
      const [rest] = await openPositions(page);
      expect(rest!.quantity).toBeCloseTo(held - Number(half), 6);
      if (width < 600) await expectNoSideScroll(page);

      // The market page sells the rest (all, the field's default) and the prices go back toward where they began.
      await page.goto(`/community-markets/${slug}`);
      await position.getByText(/Yes shares, bought at .* on average/).waitFor();
      await expectNoSeriousAxeViolations(page);
      await position.getByRole('button', { name: `Sell Yes shares of ${question}` }).click();
      await position
        .getByRole('status')
        .filter({ hasText: /Quote: .* at an average .* → \$/ })
        .waitFor();
      await position.getByRole('button', { name: 'Confirm sale' }).click();
      await position
        .getByRole('status')
        .filter({ hasText: /Sold .* shares? at .* \(realized .*\)\. New balance/ })
        .waitFor();
      await position.getByText('You hold no shares of this market.').waitFor();
      expect(await openPositions(page)).toEqual([]);
      await page.getByRole('list', { name: 'Outcomes' }).getByText('Yes · 50.0¢').waitFor();
      // Sold by quote_trade and sell_position on both pages, as a mirrored position is.
      expect([...new Set(calls)].sort()).toEqual(['/api/positions/{id}/sell', '/api/trade', '/api/trade/quote']);
      expect(pageErrors(page)).toEqual([]);
    });
  }
});
