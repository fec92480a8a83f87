import { ControlledPrices, moveQuote, seedMarket } from '../support/markets';
import { toMicro } from '../../src/domain/money/micro';
import {
  describeWithChromium,
  expectNoSeriousAxeViolations,
  expectNoSideScroll,
  pageErrors,
  signUp,
  startWebHarness,
  type WebHarness,
  openFromMore,
} from '../support/browser';

const HOUR = 3_600_000;

/** Discovery (issue 36, item 6): cards with a probability bar, 24 h change and sparkline; movers; the watchlist and its price alerts. */
describeWithChromium('discovery in Chromium', () => {
  let web: WebHarness;
  const prices = new ControlledPrices();
  beforeAll(async () => {
    web = await startWebHarness({ prices, background: false });
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  test('when a market moved 20 points in a day, then it leads Movers with its bar, change and sparkline, and the movers sort is kept in the address', async () => {
    const db = web.app.services.db;
    const mover = await seedMarket(db, { question: 'Will the big mover keep moving?' });
    const calm = await seedMarket(db, { question: 'Will the calm market stay calm?' });
    // Both at 50¢ now (seedMarket); the mover was at 30¢ a day ago, the calm one at 49¢.
    const ago = new Date(Date.now() - 25 * HOUR);
    await db.query('INSERT INTO price_snapshots (token_id, t, price_micro) VALUES ($1, $3, 300000), ($2, $3, 490000)', [mover.yes, calm.yes, ago]);
    for (const page of [await web.newPage(), await web.newPage({ width: 390 })]) {
      await page.goto('/');
      const movers = page.getByRole('list', { name: 'Movers' });
      const first = movers.getByRole('listitem').first();
      await first.getByRole('link', { name: 'Will the big mover keep moving?' }).waitFor();
      await first.getByText('50% chance').waitFor();
      await first.getByText('up 20.0 pts').waitFor();
      await first.getByRole('img', { name: 'YES over 24 hours: from 30.0¢ to 50.0¢' }).waitFor();
      const calmCard = movers.getByRole('listitem').filter({ hasText: 'Will the calm market stay calm?' });
      await calmCard.getByText('up 1.0 pts').waitFor();
      await page.getByRole('list', { name: 'Trending' }).getByRole('listitem').first().waitFor();
      await expectNoSeriousAxeViolations(page);
      await expectNoSideScroll(page);

      await page.getByRole('button', { name: 'Biggest movers' }).click();
      await page.waitForURL(/\?sort=change24h$/);
      await expect(page.getByRole('list', { name: 'Markets' }).getByRole('link').first().textContent()).resolves.toBe('Will the big mover keep moving?');
      await page.reload();
      await expect(page.getByRole('button', { name: 'Biggest movers' }).getAttribute('aria-pressed')).resolves.toBe('true');
      expect(pageErrors(page)).toEqual([]);
    }
  }, 180_000);

  test('when a person stars a market, sets an alert at 60¢ and the price crosses it, then the watchlist shows the market and a notification says so', async () => {
    const db = web.app.services.db;
    const market = await seedMarket(db, { question: 'Will the watched price cross 60 cents?' });
    prices.set(market.yes, 0.49, 0.51);
    prices.set(market.no, 0.49, 0.51);
    const page = await web.newPage();
    await signUp(page);
    await page.goto(`/markets/${market.slug}`);
    const watch = page.getByRole('region', { name: 'Watchlist' });
    await watch.getByRole('button', { name: 'Watch this market' }).click();
    await watch.getByRole('button', { name: 'Watching' }).waitFor();
    await expect(watch.getByRole('button', { name: 'Watching' }).getAttribute('aria-pressed')).resolves.toBe('true');
    await watch.getByLabel('Alert at or above (¢)').fill('60');
    await watch.getByRole('button', { name: 'Save alert' }).click();
    await watch.getByText('Alert when YES is at or above 60.0¢.').waitFor();
    await expectNoSeriousAxeViolations(page);

    await openFromMore(page, 'Watchlist');
    const watched = page.getByRole('list', { name: 'Watched markets' }).getByRole('listitem');
    await watched.filter({ hasText: 'Will the watched price cross 60 cents?' }).getByText('Alert ≥ 60.0¢').waitFor();
    expect(await watched.count()).toBe(1);
    await expectNoSeriousAxeViolations(page);

    // The price moves as a sync lands it: the mirrored book, then the change announced on the price path.
    await moveQuote(db, prices, market.yes, 0.61, 0.63);
    await web.app.services.priceChanges.emit([
      { tokenId: market.yes, bidMicro: toMicro(0.61), askMicro: toMicro(0.63), asOf: new Date(), source: 'simulated' },
    ]);
    await page.goto('/notifications');
    const list = page.getByRole('list', { name: 'Notifications' });
    await list.getByText('YES is at 62¢, at or above your alert at 60¢.').waitFor();
    // The alert links to its market's page.
    const alertLink = list.getByRole('link', { name: 'Will the watched price cross 60 cents?' });
    await expect(alertLink.getAttribute('href')).resolves.toBe(`/markets/${market.id}`);
    await expectNoSeriousAxeViolations(page);
    await alertLink.click();
    await page.getByRole('heading', { level: 1, name: 'Will the watched price cross 60 cents?' }).waitFor();
    await page.goto('/watchlist');
    await page.getByText('Alert ≥ 60.0¢ (fired)').waitFor();
    await page.getByRole('button', { name: 'Stop watching: Will the watched price cross 60 cents?' }).click();
    await page.getByText('Nothing watched yet', { exact: false }).waitFor();
    await expectNoSeriousAxeViolations(page);
    expect(pageErrors(page)).toEqual([]);
  }, 180_000);
});
