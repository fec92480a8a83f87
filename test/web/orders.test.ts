import type { Page } from 'playwright-core';
import { describeWithChromium, expectNoSeriousAxeViolations, pageErrors, saveScreenshot, signUp, startWebHarness, type WebHarness } from '../support/browser';

async function openFirstMarket(page: Page): Promise<string> {
  await page.goto('/');
  const first = page.getByRole('list', { name: 'Markets' }).getByRole('link').first();
  const question = (await first.textContent())!;
  await first.click();
  await page.getByRole('heading', { level: 1, name: question }).waitFor();
  return question;
}

describeWithChromium('limit orders in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness();
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  test('when a person rests a limit buy, fills another at once, and cancels the resting one from the portfolio, then each shows its state and the history keeps both', async () => {
    const page = await web.newPage();
    await signUp(page);
    await openFirstMarket(page);
    const form = page.getByRole('region', { name: 'Limit order' });
    await form.getByRole('group', { name: 'Order side' }).getByRole('button', { name: 'Buy' }).click();
    await form.getByLabel('Outcome').selectOption('YES');
    await form.getByLabel('Limit price (cents)').fill('1');
    await form.getByLabel('Size (virtual dollars)').fill('10');
    // GTD shows its expiry; back to GTC for this one.
    await form.getByLabel('Time in force').selectOption('GTD');
    await form.getByLabel('Expires at').waitFor();
    await form.getByLabel('Time in force').selectOption('GTC');
    expect(await form.getByLabel('Expires at').count()).toBe(0);
    // A double click places one order (the form's Idempotency-Key).
    await form.getByRole('button', { name: 'Place buy order' }).dblclick();
    await form
      .getByRole('status')
      .filter({ hasText: /^Order open at 1\.0¢: \$10\.00 reserved/ })
      .waitFor();
    await saveScreenshot(page, 'limit-order');
    await expectNoSeriousAxeViolations(page);

    await form.getByRole('button', { name: 'New order' }).click();
    await form.getByLabel('Limit price (cents)').fill('100');
    await form.getByLabel('Size (virtual dollars)').fill('5');
    await form.getByLabel('Time in force').selectOption('IOC');
    await form.getByRole('button', { name: 'Place buy order' }).click();
    await form
      .getByRole('status')
      .filter({ hasText: /^Filled: [\d.,]+ YES shares for \$5\.00/ })
      .waitFor();
    // The header shows what can be spent: $1,000 less the $5 bought, less the $10 the resting order reserves.
    await page.getByLabel('Available cash').filter({ hasText: '$985.00' }).waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Portfolio' }).click();
    const open = page.getByRole('region', { name: 'Open orders' });
    await open.getByRole('listitem').first().waitFor();
    expect(await open.getByRole('listitem').count()).toBe(1);
    await open.getByText(/reserved \$10\.00/).waitFor();
    await open.getByRole('button', { name: /^Cancel order: Buy YES \$10\.00 at 1\.0¢/ }).click();
    await open.getByText('No open orders.', { exact: false }).waitFor();
    const history = page.getByRole('region', { name: 'Order history' });
    await history.getByRole('cell', { name: /^Cancelled/ }).waitFor();
    await history.getByRole('cell', { name: /^Filled/ }).waitFor();
    expect(await history.getByRole('row').count()).toBe(3); // header + the two orders
    await saveScreenshot(page, 'portfolio-orders');
    await expectNoSeriousAxeViolations(page);
    expect(pageErrors(page)).toEqual([]);
  });
  test('when a person places a limit buy by shares, then the form shows and the order reserves shares × limit rounded up to the micro-dollar, and the order reads in shares', async () => {
    const page = await web.newPage();
    await signUp(page);
    await openFirstMarket(page);
    const form = page.getByRole('region', { name: 'Limit order' });
    await form.getByRole('group', { name: 'Order side' }).getByRole('button', { name: 'Buy' }).click();
    await form.getByLabel('Outcome').selectOption('YES');
    await form.getByLabel('Buy by').selectOption('shares');
    await form.getByLabel('Limit price (cents)').fill('3');
    // 333.333333 shares × $0.03 = $9.99999999, which reserves $10.000000 (rounded up to the micro-dollar).
    await form.getByLabel('Size (shares)').fill('333.333333');
    await form.getByText('Reserves up to $10.00', { exact: false }).waitFor();
    await form.getByRole('button', { name: 'Place buy order' }).click();
    await form
      .getByRole('status')
      .filter({ hasText: /^Order open at 3\.0¢: \$10\.00 reserved/ })
      .waitFor();
    await page.getByLabel('Available cash').filter({ hasText: '$990.00' }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Portfolio' }).click();
    const open = page.getByRole('region', { name: 'Open orders' });
    await open.getByRole('button', { name: /^Cancel order: Buy YES 333\.3333 shares at 3\.0¢/ }).waitFor();
    expect(pageErrors(page)).toEqual([]);
  });
});
