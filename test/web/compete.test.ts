import { seedMarket, ControlledPrices } from '../support/markets';
import { agentTrader, buy, sell, settle } from '../support/traders';
import { browserTrader } from '../support/browser-trader';
import {
  openFromAccountMenu,
  openFromMore,
  describeWithChromium,
  expectNoSeriousAxeViolations,
  expectNoSideScroll,
  pageErrors,
  saveScreenshot,
  signUp,
  startWebHarness,
  tabTo,
  type WebHarness,
  signOut,
} from '../support/browser';

/** Leaderboards, trader profiles, the daily challenge and notifications, clicked through in Chromium. */
describeWithChromium('leaderboards, profiles, challenge and notifications in Chromium', () => {
  let web: WebHarness;
  const prices = new ControlledPrices();
  beforeAll(async () => {
    web = await startWebHarness({ prices, background: false });
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  test('when a person is ranked below the rows shown, then the leaderboard still shows their rank, and in the top 100 their own row is highlighted and links to their profile', async () => {
    const page = await web.newPage();
    const person = await signUp(page, { displayName: 'Board Climber' });
    const me = await browserTrader(page, web.baseUrl);
    const m = await seedMarket(web.app.services.db);
    for (let i = 0; i < 11; i += 1) await buy(web.app, prices, await agentTrader(web.app, 'Whale'), m, 'YES', 200, 0.5);
    await buy(web.app, prices, me, m, 'YES', 10, 0.5);

    await page.goto('/leaderboard');
    await page.getByRole('heading', { level: 1, name: 'Leaderboards' }).waitFor();
    await page.getByLabel('Metric').selectOption('volume');
    await page.getByLabel('Audience').selectOption('everyone');
    await page.getByLabel('Rows').selectOption('10');
    await page.getByRole('caption').filter({ hasText: 'Volume, this week, everyone' }).waitFor();
    const api = (await (await page.request.get('/api/leaderboard?metric=volume&audience=everyone&limit=100')).json()) as { currentUserRank: number };
    expect(api.currentUserRank).toBeGreaterThan(10);
    await page.getByText(`Your rank: #${api.currentUserRank} (below the rows shown)`).waitFor();
    expect(await page.getByRole('table').getByRole('row').count()).toBe(11);

    await page.getByLabel('Rows').selectOption('100');
    const mine = page.locator('tr[aria-current="true"]');
    await mine.waitFor();
    await expect(mine.getAttribute('class')).resolves.toBe('current-user');
    await expect(mine.textContent()).resolves.toContain(`${person.displayName} (you)`);
    await expect(mine.getByRole('cell').last().textContent()).resolves.toBe('$10.00');
    await page.getByText(`Your rank: #${api.currentUserRank}`, { exact: true }).waitFor();
    await expectNoSeriousAxeViolations(page);

    await mine.getByRole('link', { name: person.displayName }).click();
    await page.getByRole('heading', { level: 1, name: person.displayName }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/traders/${me.id}`);
    expect(pageErrors(page)).toEqual([]);
  });

  test('when a trader has settled positions, then their public profile shows level and XP progress, stats, badges and the forecasting record with a calibration chart', async () => {
    const page = await web.newPage();
    const person = await signUp(page, { displayName: 'Forecaster' });
    const me = await browserTrader(page, web.baseUrl);
    const won = await seedMarket(web.app.services.db);
    const lost = await seedMarket(web.app.services.db);
    await buy(web.app, prices, me, won, 'YES', 60, 0.65);
    await buy(web.app, prices, me, lost, 'NO', 25, 0.25);
    await settle(web.app, won, 'YES');
    await settle(web.app, lost, 'YES');
    const rep = (await (await page.request.get(`/api/agents/${me.id}/reputation`)).json()) as {
      forecasting: { entryPriceBrier: number; entryPriceSkill: number; calibration: { lower: number; count: number }[] };
    };

    // Anyone can read it: a signed-out visitor in a fresh browser.
    const visitor = await web.newPage();
    await visitor.goto(`/traders/${me.id}`);
    await visitor.getByRole('heading', { level: 1, name: person.displayName }).waitFor();
    await visitor.getByRole('heading', { level: 2, name: /^Level \d+: / }).waitFor();
    await expect(visitor.getByRole('progressbar', { name: 'Progress to the next level' }).count()).resolves.toBe(1);
    await visitor.getByText(/\d+ XP · \d+ XP to level \d+/).waitFor();
    await expect(visitor.getByRole('definition').filter({ hasText: '% of 2 settled' }).count()).resolves.toBe(1);
    await visitor.getByRole('heading', { level: 2, name: 'Badges' }).waitFor();
    await visitor.getByText('First Trade', { exact: true }).waitFor();

    await visitor.getByRole('heading', { level: 2, name: 'Forecasting record' }).waitFor();
    await visitor
      .getByRole('definition')
      .filter({ hasText: rep.forecasting.entryPriceBrier.toFixed(3) })
      .first()
      .waitFor();
    await visitor
      .getByRole('definition')
      .filter({ hasText: rep.forecasting.entryPriceSkill.toFixed(3) })
      .first()
      .waitFor();
    await expect(visitor.getByRole('img', { name: /^Calibration chart: 2 of 10 forecast buckets/ }).count()).resolves.toBe(1);
    await expect(visitor.locator('.calibration svg circle').count()).resolves.toBe(2);
    const table = visitor.getByRole('table', { name: 'Calibration by entry-price bucket' });
    expect(await table.getByRole('row').count()).toBe(11);
    for (const b of rep.forecasting.calibration.filter((c) => c.count > 0)) {
      const label = `${Math.round(b.lower * 100)}–${Math.round(b.lower * 100) + 10}%`;
      await expect(table.getByRole('row', { name: new RegExp(`^${label} ${b.count} `) }).count()).resolves.toBe(1);
    }
    await saveScreenshot(visitor, 'trader-profile');
    await visitor.getByRole('img', { name: /^Calibration chart/ }).scrollIntoViewIfNeeded();
    await saveScreenshot(visitor, 'trader-calibration');
    await expectNoSeriousAxeViolations(visitor);
    expect(pageErrors(visitor)).toEqual([]);
  });

  test('when a person completes the daily challenge, then the progress bar fills, the claim pays, and notifications can be marked read one by one and all at once while the header count follows', async () => {
    const page = await web.newPage();
    await signUp(page, { displayName: 'Challenger' });
    const me = await browserTrader(page, web.baseUrl);

    await openFromMore(page, 'Challenge');
    await page.getByRole('heading', { level: 1, name: 'Daily challenge' }).waitFor();
    await expect(page.getByRole('progressbar', { name: 'Challenge progress' }).getAttribute('value')).resolves.toBe('0');
    await expect(page.getByRole('button', { name: 'Claim reward (complete it first)' }).isDisabled()).resolves.toBe(true);
    await expectNoSeriousAxeViolations(page);

    // Whatever today's challenge is, this completes it: 3 markets, 4 trades, $300 bought, a sale at a profit.
    const markets = [await seedMarket(web.app.services.db), await seedMarket(web.app.services.db), await seedMarket(web.app.services.db)];
    const fills = [];
    for (const m of markets) fills.push(await buy(web.app, prices, me, m, 'YES', 100, 0.5));
    await sell(web.app, prices, me, markets[0]!, 'YES', fills[0]!.positionId, 0.6);

    await page.reload();
    await expect(page.getByRole('progressbar', { name: 'Challenge progress' }).getAttribute('value')).resolves.toBe('100');
    const before = await page.getByLabel('Available cash').textContent();
    await page.getByRole('button', { name: 'Claim reward' }).click();
    await page.getByText(/^You got \d+ XP and \$[\d.]+; your balance is /).waitFor();
    await page.getByText('Claimed. Come back tomorrow for the next one.').waitFor();
    await page.getByLabel('Available cash').filter({ hasNotText: before! }).waitFor();

    const unread = async () => Number(await page.getByLabel('Unread notifications').textContent());
    await openFromAccountMenu(page, /^Notifications/);
    await page.getByRole('heading', { level: 1, name: 'Notifications' }).waitFor();
    const list = page.getByRole('list', { name: 'Notifications' });
    await list.getByRole('listitem').first().waitFor();
    const count = await unread();
    expect(count).toBeGreaterThanOrEqual(2);
    await page.getByText(`${count} unread.`).waitFor();
    await expectNoSeriousAxeViolations(page);

    await list
      .getByRole('button', { name: /^Mark “.+” as read$/ })
      .first()
      .click();
    await page.getByText(`${count - 1} unread.`).waitFor();
    await page
      .getByLabel('Unread notifications')
      .filter({ hasText: String(count - 1) })
      .waitFor();
    await page.getByRole('button', { name: 'Mark all as read' }).click();
    await page.getByText('Nothing unread.').waitFor();
    await page.getByLabel('Unread notifications').filter({ hasText: /^0$/ }).waitFor();
    await expect(list.getByRole('button', { name: /as read/ }).count()).resolves.toBe(0);
    expect(pageErrors(page)).toEqual([]);
  });

  test('when a person uses the keyboard alone, then they can claim the challenge, mark notifications read and open their profile from the leaderboard', async () => {
    const page = await web.newPage();
    const person = await signUp(page, { displayName: 'Keyboard Only' });
    const me = await browserTrader(page, web.baseUrl);
    const markets = [await seedMarket(web.app.services.db), await seedMarket(web.app.services.db), await seedMarket(web.app.services.db)];
    const fills = [];
    for (const m of markets) fills.push(await buy(web.app, prices, me, m, 'YES', 100, 0.5));
    await sell(web.app, prices, me, markets[0]!, 'YES', fills[0]!.positionId, 0.6);

    await page.goto('/challenge');
    await page.getByRole('button', { name: 'Claim reward' }).waitFor();
    await tabTo(page, /^Claim reward$/);
    await page.keyboard.press('Enter');
    await page.getByText('Claimed. Come back tomorrow for the next one.').waitFor();

    await page.goto('/notifications');
    await page.getByRole('button', { name: 'Mark all as read' }).waitFor();
    await tabTo(page, /^Mark all as read$/);
    await page.keyboard.press('Enter');
    await page.getByText('Nothing unread.').waitFor();

    await page.goto('/leaderboard');
    await page.locator('tr[aria-current="true"]').waitFor();
    await tabTo(page, new RegExp(`^${person.displayName}$`), 200);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: person.displayName }).waitFor();
    expect(pageErrors(page)).toEqual([]);
  });

  test('when a signed-out visitor opens the challenge or notifications, then they are sent to sign in and come back afterwards; the leaderboard invites them to sign in', async () => {
    const page = await web.newPage();
    const person = await signUp(page);
    await signOut(page);
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    await page.goto('/leaderboard');
    await page.getByText('to see your rank.').waitFor();
    for (const path of ['/challenge', '/notifications']) {
      await page.goto(path);
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      expect(new URL(page.url()).searchParams.get('next')).toBe(path);
    }
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Notifications' }).waitFor();
  });

  test('when the leaderboard, a profile, the challenge and notifications are 390 px wide, then none scrolls sideways', async () => {
    const page = await web.newPage({ width: 390 });
    await signUp(page);
    const me = await browserTrader(page, web.baseUrl);
    const m = await seedMarket(web.app.services.db);
    await buy(web.app, prices, me, m, 'YES', 20, 0.4);
    await settle(web.app, m, 'YES');
    for (const path of ['/leaderboard', `/traders/${me.id}`, '/challenge', '/notifications']) {
      await page.goto(path);
      await page.getByRole('heading', { level: 1 }).waitFor();
      if (path.startsWith('/traders')) await page.getByRole('heading', { name: 'Forecasting record' }).waitFor();
      await expectNoSideScroll(page);
    }
  });
});
