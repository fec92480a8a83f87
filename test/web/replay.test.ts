import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { registerAgent } from '../support/app';
import { ReplayStore } from '../../src/domain/replay/replay-store';
import type { ReplayRecord } from '../../src/domain/replay/replay-runs';
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

/**
 * The page as it is now, at 1280 px and at a phone's 390 px: nothing scrolls sideways, and (at the widths given, as axe
 * takes seconds a scan) no serious axe finding.
 */
async function checkLook(page: Page, axeAt: number[] = [1280, 390]): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width < 600 ? 844 : 900 });
    await expectNoSideScroll(page);
    if (axeAt.includes(width)) await expectNoSeriousAxeViolations(page);
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

  test.each([1280, 390])(
    'when a person starts a replay in one tab (width %i), then any tab lists it, resumes it and ends it after a confirmation; a run started elsewhere is listed and ended here',
    async (width) => {
      const page = await web.newPage({ width });
      await signUp(page);
      const ends: string[] = [];
      page.context().on('request', (r) => {
        if (r.method() === 'POST' && /^\/api\/replays\/[^/]+\/end$/.test(new URL(r.url()).pathname)) ends.push(new URL(r.url()).pathname);
      });
      await page.goto('/replay');
      const runsOf = (p: Page) => p.getByRole('region', { name: 'Your replays' });
      await runsOf(page).getByText('No replays yet: start one below.').waitFor();
      await page.getByLabel('Seed').fill('8');
      await page.getByLabel('Days').fill('1');
      await page.getByRole('button', { name: 'Start replay' }).click();
      await page.getByRole('region', { name: 'Replay clock' }).waitFor({ timeout: 30_000 });

      // Another tab of the same browser lists the run and resumes it.
      const other = await page.context().newPage();
      await other.goto(`${web.baseUrl}/replay`);
      const item = runsOf(other).getByRole('listitem').filter({ hasText: 'Seed 8, 1 day' });
      await item.getByText(/· running, at /).waitFor();
      await expectNoSeriousAxeViolations(other);
      await item.getByRole('button', { name: 'Resume' }).click();
      const clock = other.getByRole('region', { name: 'Replay clock' });
      await clock.getByText(/^It is now /).waitFor();

      // Ending asks first; "Keep playing" sends nothing.
      await clock.getByRole('button', { name: 'End replay' }).click();
      const confirm = clock.getByRole('group', { name: 'Confirm ending the replay' });
      await confirm.getByText('End this replay? Every market settles now and the run stops trading for good.').waitFor();
      await expectNoSeriousAxeViolations(other);
      await confirm.getByRole('button', { name: 'Keep playing' }).click();
      await clock.getByRole('button', { name: 'End replay' }).waitFor();
      expect(ends).toEqual([]);
      await clock.getByRole('button', { name: 'End replay' }).click();
      await confirm.getByRole('button', { name: 'Yes, end it' }).click();
      await clock.getByText(/^Ended at /).waitFor({ timeout: 30_000 });
      expect(ends).toHaveLength(1);

      // A run started elsewhere (here through the API, so this browser holds no key of it): listed, ended after a confirmation.
      const elsewhere = (await other.evaluate(async () => {
        const res = await fetch('/api/replays', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ seed: 9, days: 1 }),
        });
        return (await res.json()) as { runId: string };
      })) as { runId: string };
      await clock.getByRole('button', { name: 'Start another replay' }).click();
      const list = runsOf(other).getByRole('listitem');
      const far = list.filter({ hasText: 'Seed 9, 1 day' });
      await far.getByText('Started in another browser: play it there.').waitFor();
      await expect(list.first().textContent()).resolves.toContain('Seed 9, 1 day');
      await expect(list.filter({ hasText: 'Seed 8, 1 day' }).textContent()).resolves.toContain('ended');
      await far.getByRole('button', { name: 'End replay' }).click();
      await far.getByRole('group', { name: 'Confirm ending the replay' }).getByRole('button', { name: 'Yes, end it' }).click();
      await far.getByText(/· ended, at /).waitFor({ timeout: 30_000 });
      expect(ends.at(-1)).toBe(`/api/replays/${elsewhere.runId}/end`);
      const listed = (await other.evaluate(async () => (await (await fetch('/api/replays')).json()) as { runs: { state: string }[] })) as {
        runs: { state: string }[];
      };
      expect(listed.runs.map((r) => r.state)).toEqual(['ended', 'ended']);
      expect(pageErrors(other)).toEqual([]);
    },
    180_000,
  );

  test('when a person starts a 1-day replay, steps to the next news, buys, states a forecast and ends it, then every run call carries the run key and the record is shown', async () => {
    const page = await web.newPage();
    await signUp(page, { displayName: 'Replayer' });
    // Which credentials each of the run's calls carried (the run's key, never the person's session). Counted from the
    // run's start: the home page the sign-up lands on reads the live markets with the session, and may still be doing so.
    const runCalls: { path: string; auth: string | undefined }[] = [];
    let started = false;
    page.on('request', (r) => {
      const path = new URL(r.url()).pathname;
      if (started && /^\/api\/(news|markets|trade|forecasts|positions|replays\/)/.test(path)) runCalls.push({ path, auth: r.headers()['authorization'] });
    });

    await openFromMore(page, 'Replay');
    await page.getByRole('heading', { level: 1, name: 'Replay' }).waitFor();
    await page.getByLabel('Seed').fill('7');
    await page.getByLabel('Days').fill('1');
    started = true;
    await page.getByRole('button', { name: 'Start replay' }).click();
    const clock = page.getByRole('region', { name: 'Replay clock' });
    await clock.waitFor({ timeout: 30_000 });
    const startedAt = await clock.locator('time').getAttribute('datetime');

    await clock.getByRole('button', { name: 'Next news' }).click();
    const news = page.getByRole('region', { name: 'News' });
    const pick = news.getByRole('button', { name: /^Trade this market/ }).first();
    await pick.waitFor();
    // The step re-reads the run and its news side by side: the news may show before the clock has moved.
    let movedTo = startedAt;
    for (const deadline = Date.now() + 10_000; movedTo === startedAt && Date.now() < deadline;) {
      await page.waitForTimeout(50);
      movedTo = await clock.locator('time').getAttribute('datetime');
    }
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
    await clock.getByRole('group', { name: 'Confirm ending the replay' }).getByRole('button', { name: 'Yes, end it' }).click();
    const record = page.getByRole('region', { name: 'Your record' });
    await record.waitFor({ timeout: 30_000 });
    const alpha = record
      .getByRole('term')
      .filter({ has: page.getByRole('link', { name: 'Alpha', exact: true }) })
      .locator('xpath=following-sibling::dd[1]');
    await expect(alpha.textContent()).resolves.toMatch(/· n \d+$/);
    await clock.getByText(/^Ended at /).waitFor();
    await clock.getByRole('button', { name: 'Start another replay' }).waitFor();
    // The phone layout of these parts was scanned while running; the record is new here.
    await checkLook(page, [1280]);

    const runKeyed = runCalls.filter((c) => c.path !== '/api/replays');
    expect(runKeyed.length).toBeGreaterThan(6);
    expect(runKeyed.filter((c) => !/^Bearer rpl_/.test(c.auth ?? ''))).toEqual([]);
    // The person's own account bought nothing.
    const own = (await (await page.request.get('/api/positions')).json()) as { positions: unknown[]; balance: number };
    expect(own).toMatchObject({ positions: [], balance: 1000 });
    expect(pageErrors(page)).toEqual([]);
  }, 90_000);

  test('when an agent has ended ten suite scenarios and a person two, then the board ranks the agent with its mean alpha, interval and n, and tells the person how many more they need', async () => {
    const agent = await registerAgent(web.app, 'Suite Agent');
    const page = await web.newPage();
    await signUp(page, { displayName: 'Suite Person' });
    const me = ((await (await page.request.get('/api/user/me')).json()) as { user: { id: string } }).user.id;
    // Frozen runs as end_replay leaves them (as test/replay/replay-suite.test.ts writes them): their alphas.
    const store = new ReplayStore(web.app.services.db);
    let minute = 0;
    const ended = async (owner: string, index: number, alpha: number) => {
      const id = randomUUID().replace(/-/g, '').slice(0, 12);
      const start = new Date(Date.UTC(2025, 0, 1));
      const name = `suite-v3/${String(index).padStart(2, '0')}`;
      await store.insert({
        id,
        owner_id: owner,
        key_hash: `fixture-${id}`,
        scenario: { seed: 53_000 + Math.floor(index / 10), days: 30, name, suite: 'suite-v3' },
        mode: 'step',
        speed: null,
        start_at: start,
        end_at: new Date(start.getTime() + 30 * 86_400_000),
        sim_now: start,
        wall_started_at: new Date(),
        account_id: randomUUID(),
        created_at: new Date(),
      });
      const record = { forecasts: { alpha: { value: alpha, n: 10, low: null, high: null } } } as unknown as ReplayRecord;
      await store.end(id, start, record, new Date(Date.UTC(2026, 10, 1, 0, ++minute)));
    };
    const alphas = [0.0, 0.02, 0.04, 0.01, 0.03, 0.05, 0.02, 0.0, 0.01, 0.02];
    for (const [i, alpha] of alphas.entries()) await ended(agent.id, i, alpha);
    for (const i of [0, 1]) await ended(me, i, 0.1);
    const mean = alphas.reduce((a, b) => a + b, 0) / alphas.length; // 0.020

    await openFromMore(page, 'Replay board');
    await page.getByRole('heading', { level: 1, name: 'Replay suite board' }).waitFor();
    await page.getByText(/^suite-v3: 50 scenarios; an account is ranked once it has ended 10\.$/).waitFor();
    const row = page.getByRole('row', { name: /Suite Agent/ });
    await row.waitFor();
    const cells = await row.getByRole('cell').allInnerTexts();
    expect(cells[0]).toBe('1');
    expect(cells[2]).toMatch(new RegExp(`^${mean.toFixed(3)} \\[−?0\\.\\d{3}, 0\\.\\d{3}\\] · n 10$`));
    expect(cells[3]).toBe('10');
    await page.getByRole('status').filter({ hasText: 'You are not ranked yet: 2 of the 10 scenarios needed.' }).waitFor();
    await checkLook(page);
    expect(pageErrors(page)).toEqual([]);
  });
});
