import { describeWithChromium, expectNoSeriousAxeViolations, pageErrors, signUp, startWebHarness, type WebHarness } from '../support/browser';

describeWithChromium('the equity curve on the portfolio page in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness();
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  test('when a person with an hourly snapshot opens the portfolio, then the equity chart draws, and the period selector redraws it', async () => {
    const page = await web.newPage();
    await signUp(page);
    // What the sync leader does after a sync: this hour's snapshot of every account, the new person's included.
    for (const hook of web.app.services.marketSync.afterSync) await hook(web.app.services.clock.now());

    const chartChunk: string[] = [];
    page.on('request', (r) => {
      if (/equity-chart/.test(r.url())) chartChunk.push(r.url());
    });
    await page.goto('/portfolio');
    await page.getByRole('heading', { level: 1, name: 'Portfolio' }).waitFor();
    const chart = page.getByRole('img', { name: /^Equity over the last week: from \$1,000\.00 to \$1,000\.00 \(\$0\.00\), 2 points\.$/ });
    await chart.waitFor();
    // The chart library drew into the box (its canvas), and the code came as its own chunk.
    expect(await chart.locator('canvas').count()).toBeGreaterThan(0);
    expect(chartChunk.length).toBe(1);
    const periods = page.getByRole('group', { name: 'Equity period' });
    for (const p of ['1d', '1w', '1m', 'all']) await periods.getByRole('button', { name: p, exact: true }).waitFor();
    await periods.getByRole('button', { name: '1d', exact: true }).click();
    await page.getByRole('img', { name: /^Equity over the last day: .* 2 points\.$/ }).waitFor();
    expect(await periods.getByRole('button', { name: '1d', exact: true }).getAttribute('aria-pressed')).toBe('true');
    await periods.getByRole('button', { name: 'all', exact: true }).click();
    await page.getByRole('img', { name: /^Equity over all time: .* 2 points\.$/ }).waitFor();
    await expectNoSeriousAxeViolations(page);
    expect(pageErrors(page)).toEqual([]);
  });
});
