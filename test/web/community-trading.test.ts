import { describeWithChromium, expectNoSeriousAxeViolations, pageErrors, signUp, startWebHarness, type WebHarness } from '../support/browser';

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
    expect(pageErrors(page)).toEqual([]);
  });
});
