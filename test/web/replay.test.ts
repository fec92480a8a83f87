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

/** The page is checked at 1280 px and at a phone's 390 px: no serious axe finding, nothing scrolls sideways. */
async function checkLook(page: Page): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width < 600 ? 844 : 900 });
    await expectNoSideScroll(page);
    await expectNoSeriousAxeViolations(page);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** A replay played by a person in Chromium: start, step to the news, buy, forecast, end and read the record; and the suite board. */
describeWithChromium('the replay pages in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness({ background: false });
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  test('when a person starts a 1-day replay, steps to the next news, buys, states a forecast and ends it, then every run call carries the run key and the record is shown', async () => {
    const page = await web.newPage();
    await signUp(page, { displayName: 'Replayer' });
    // Which credentials each of the run's calls carried (the run's key, never the person's session).
    const runCalls: { path: string; auth: string | undefined }[] = [];
    page.on('request', (r) => {
      const path = new URL(r.url()).pathname;
      if (/^\/api\/(news|markets|trade|forecasts|positions|replays\/)/.test(path)) runCalls.push({ path, auth: r.headers()['authorization'] });
    });

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Replay', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Replay' }).waitFor();
    await page.getByLabel('Seed').fill('7');
    await page.getByLabel('Days').fill('1');
    await page.getByRole('button', { name: 'Start replay' }).click();
    const clock = page.getByRole('region', { name: 'Replay clock' });
    await clock.waitFor({ timeout: 30_000 });
    const startedAt = await clock.locator('time').getAttribute('datetime');

    await clock.getByRole('button', { name: 'Next news' }).click();
    const news = page.getByRole('region', { name: 'News' });
    const pick = news.getByRole('button', { name: /^Trade this market/ }).first();
    await pick.waitFor();
    const movedTo = await clock.locator('time').getAttribute('datetime');
    expect(Date.parse(movedTo!)).toBeGreaterThan(Date.parse(startedAt!));
    // The newest item is the one the clock moved to.
    await expect(news.locator('time').first().getAttribute('datetime')).resolves.toBe(movedTo);
    const question = (await pick.textContent())!.replace(/^Trade this market: /, '');

    await pick.click();
    const ticket = page.getByRole('region', { name: `Trade: ${question}` });
    await ticket.getByRole('button', { name: 'Buy YES for $10.00' }).click();
    await ticket
      .getByRole('status')
      .filter({ hasText: /^Bought [\d.]+ YES shares at [\d.]+¢ for \$10\.00\. Cash left \$990\.00\.$/ })
      .waitFor();
    await ticket.getByLabel('Your chance of YES (%)').fill('70');
    await ticket.getByRole('button', { name: 'Save forecast' }).click();
    await ticket.getByRole('status').filter({ hasText: 'Forecast saved: 70.0% chance of YES.' }).waitFor();
    const money = page.getByRole('region', { name: 'Your replay money' });
    await money.getByText(`${question}: `, { exact: false }).waitFor();
    await checkLook(page);

    await clock.getByRole('button', { name: 'End replay' }).click();
    const record = page.getByRole('region', { name: 'Your record' });
    await record.waitFor({ timeout: 30_000 });
    const alpha = record
      .getByRole('term')
      .filter({ has: page.getByRole('link', { name: 'Alpha', exact: true }) })
      .locator('xpath=following-sibling::dd[1]');
    await expect(alpha.textContent()).resolves.toMatch(/· n \d+$/);
    await clock.getByText(/^Ended at /).waitFor();
    await clock.getByRole('button', { name: 'Start another replay' }).waitFor();
    await checkLook(page);

    const runKeyed = runCalls.filter((c) => c.path !== '/api/replays');
    expect(runKeyed.length).toBeGreaterThan(6);
    expect(runKeyed.filter((c) => !/^Bearer rpl_/.test(c.auth ?? ''))).toEqual([]);
    // The person's own account bought nothing.
    const own = (await (await page.request.get('/api/positions')).json()) as { positions: unknown[]; balance: number };
    expect(own).toMatchObject({ positions: [], balance: 1000 });
    expect(pageErrors(page)).toEqual([]);
  }, 90_000);

  test('when someone opens the suite board, then it says what is ranked and where they stand', async () => {
    const page = await web.newPage();
    await page.goto('/replay/suite');
    await page.getByRole('heading', { level: 1, name: 'Replay suite board' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Sign in to see your place.' }).waitFor();
    await page.getByText(/^suite-v1: 20 scenarios; an account is ranked once it has ended \d+\.$/).waitFor();
    await checkLook(page);
    expect(pageErrors(page)).toEqual([]);
  });
});
