import { seedMarket, ControlledPrices } from '../support/markets';
import { buy, sell, settle } from '../support/traders';
import { browserTrader } from '../support/browser-trader';
import { describeWithChromium, expectNoSeriousAxeViolations, pageErrors, signUp, startWebHarness, type WebHarness } from '../support/browser';

/** Notifications and errors in people's words (issue 36, item 10), read in Chromium. */
describeWithChromium('notifications and errors in people words in Chromium', () => {
  let web: WebHarness;
  const prices = new ControlledPrices();
  beforeAll(async () => {
    web = await startWebHarness({ prices, background: false });
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  test('when a challenge is completed and a position settles, then the notifications read as sentences with dollars to the cent and a link to the market, never API calls', async () => {
    const page = await web.newPage();
    await signUp(page);
    const me = await browserTrader(page, web.baseUrl);
    // Whatever today's challenge is, this completes it: 3 markets, 4 trades, $300 bought, a sale at a profit.
    const markets = [await seedMarket(web.app.services.db), await seedMarket(web.app.services.db), await seedMarket(web.app.services.db)];
    const fills = [];
    for (const m of markets) fills.push(await buy(web.app, prices, me, m, 'YES', 100, 0.37));
    await sell(web.app, prices, me, markets[0]!, 'YES', fills[0]!.positionId, 0.6);
    // 100 / 0.37 shares pay 270.270270 dollars: the service's message prints all six decimals.
    await settle(web.app, markets[1]!, 'YES');
    const api = (await (await page.request.get('/api/notifications')).json()) as { notifications: { type: string; message: string }[] };
    expect(api.notifications.find((n) => n.type === 'challenge')?.message).toMatch(/POST \/api\/challenges/);
    expect(api.notifications.find((n) => n.type === 'resolution')?.message).toMatch(/270\.27027 dollars/);

    await page.goto('/notifications');
    const list = page.getByRole('list', { name: 'Notifications' });
    const challenge = list.getByRole('listitem').filter({ hasText: 'Daily challenge complete' });
    await challenge.getByText("You completed today's challenge. Claim your reward on the challenge page.").waitFor();
    const won = list.getByRole('listitem').filter({ hasText: 'Your position won' });
    const [m] = await web.app.services.db.query<{ question: string }>('SELECT question FROM markets WHERE id = $1', [markets[1]!.id]);
    await won.getByText(/has resolved\. Your YES position was settled: it realized \+\$170\.27 in all\./).waitFor();
    await expect(won.getByRole('link', { name: m!.question }).getAttribute('href')).resolves.toBe(`/markets/${markets[1]!.slug}`);
    const text = (await list.textContent())!;
    expect(text).not.toMatch(/POST|\/api\/|[a-z]+_[a-z]+|\d\.\d{3,}/);
    await expectNoSeriousAxeViolations(page);

    await challenge.getByRole('link', { name: 'challenge page' }).click();
    await page.getByRole('heading', { level: 1, name: 'Daily challenge' }).waitFor();
    expect(pageErrors(page)).toEqual([]);
  });

  test('when a buy costs more than the available cash, then the error hint is in the app words, not the API hint', async () => {
    const page = await web.newPage();
    await signUp(page);
    const market = await seedMarket(web.app.services.db);
    prices.set(market.yes, 0.5, 0.5);
    prices.set(market.no, 0.5, 0.5);
    await page.goto(`/markets/${market.slug}`);
    // Both the trade ticket (trading.test.ts) and the limit form refuse such an amount as it is typed (issue 53 item 7), in
    // the app's words, before any call: the buy cannot be placed.
    await page.getByLabel('Size (virtual dollars)').fill('5000');
    await page.getByText('Not enough cash: $5,000.00 is more than the $1,000.00 available.').waitFor();
    expect(await page.getByRole('button', { name: 'Place buy order' }).isDisabled()).toBe(true);
    expect(await page.locator('main').textContent()).not.toMatch(/get_balance/);
  });
});
