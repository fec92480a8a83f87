import { describeWithChromium, expectNoSeriousAxeViolations, pageErrors, signUp, startWebHarness, type WebHarness } from '../support/browser';

type Listed = { markets: Array<{ slug: string; outcomeTokens: Array<{ outcome: string; tokenId: string }> }> };
type Book = { bids: Array<{ price: number; shares: number }>; asks: Array<{ price: number; shares: number }>; bid: number; ask: number };

/** The order book on a market page and cancel-all in the portfolio (issue 34's web bar; issue 36 item 5), in Chromium. */
describeWithChromium('order book and cancel-all in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness({ background: false });
    await web.app.services.marketSync.runOnce();
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  test('when a person opens a market’s order book, then its levels are the book the API gives, read only once opened', async () => {
    const m = ((await web.app.api.get('/api/markets').query({ limit: 1 })).body as Listed).markets[0]!;
    const yes = m.outcomeTokens.find((t) => t.outcome === 'YES')!;
    const page = await web.newPage();
    const bookReads: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/book') bookReads.push(r.url());
    });
    await page.goto(`/markets/${m.slug}`);
    const summary = page.getByText('YES order book', { exact: true });
    await summary.waitFor();
    expect(bookReads).toEqual([]);
    // The book the page was given (the simulated venue's prices move, so a second read may differ by a tick).
    const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/book');
    await summary.click();
    const table = page.getByRole('table', { name: /^YES: best bid/ });
    await table.waitFor();
    expect(bookReads).toHaveLength(1);
    expect(new URL(bookReads[0]!).searchParams.get('tokenId')).toBe(yes.tokenId);
    const book = (await (await answer).json()) as Book;
    const cents = (p: number) => `${(p * 100).toFixed(1)}¢`;
    const rows = await table.locator('tbody tr').allTextContents();
    expect(rows).toHaveLength(Math.max(book.bids.length, book.asks.length));
    const firstRow = await table.locator('tbody tr').first().locator('td').allTextContents();
    expect(firstRow[1]).toBe(cents(book.bids[0]!.price));
    expect(firstRow[2]).toBe(cents(book.asks[0]!.price));
    await expectNoSeriousAxeViolations(page);
    expect(pageErrors(page)).toEqual([]);
  });

  test('when a person cancels all open orders from the portfolio, then after a confirming press every order is cancelled and its cash is free again', async () => {
    const page = await web.newPage();
    await signUp(page);
    const m = ((await web.app.api.get('/api/markets').query({ limit: 1 })).body as Listed).markets[0]!;
    const yes = m.outcomeTokens.find((t) => t.outcome === 'YES')!;
    for (const amount of [10, 20]) {
      const placed = await page.request.post('/api/orders', {
        headers: { Origin: web.baseUrl },
        data: { tokenId: yes.tokenId, side: 'BUY', limitPrice: 0.01, amount, timeInForce: 'GTC' },
      });
      expect(placed.status()).toBe(200);
    }
    const balance = async () => (await (await page.request.get('/api/user/balance')).json()) as { reserved: number; available: number };
    expect(await balance()).toMatchObject({ reserved: 30, available: 970 });

    await page.goto('/portfolio');
    const open = page.getByRole('region', { name: 'Open orders' });
    await open.getByRole('listitem').nth(1).waitFor();
    await open.getByRole('button', { name: 'Cancel all open orders' }).click();
    await open.getByRole('button', { name: 'Keep them' }).click();
    expect(await open.getByRole('listitem').count()).toBe(2);
    await open.getByRole('button', { name: 'Cancel all open orders' }).click();
    await open.getByRole('button', { name: 'Yes, cancel all 2' }).click();
    await page.getByText('Cancelled 2 orders; their reserved cash and shares are free again.').waitFor();
    await open.getByText(/No open orders\./).waitFor();
    expect(await balance()).toMatchObject({ reserved: 0, available: 1000 });
    await expectNoSeriousAxeViolations(page);
    expect(pageErrors(page)).toEqual([]);
  });
});
