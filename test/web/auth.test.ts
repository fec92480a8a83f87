import { describeWithChromium, expectNoSeriousAxeViolations, signUp, startWebHarness, type WebHarness, signOut } from '../support/browser';

describeWithChromium('signing up and in, with errors inline, in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness();
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  test('when the form is sent with a short password, then the field says so and no account is made', async () => {
    const page = await web.newPage();
    await page.goto('/signup');
    await page.getByLabel('Email').fill(`short-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('abc');
    await page.getByLabel('Display name').fill('Shorty');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText('The password is too short: at least 8 characters.').waitFor();
    await expect(page.getByLabel('Password').getAttribute('aria-invalid')).resolves.toBe('true');
    await expectNoSeriousAxeViolations(page);
    await expect(page.getByRole('link', { name: 'Sign in' }).first().isVisible()).resolves.toBe(true);
  });

  test('when the email is taken, then the email field says so', async () => {
    const page = await web.newPage();
    const person = await signUp(page);
    await signOut(page);
    await page.getByRole('link', { name: 'Sign in' }).first().waitFor();
    await page.goto('/signup');
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill('another-password');
    await page.getByLabel('Display name').fill('Copycat');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText(/Sign in instead, or use another email\./).waitFor();
    await expect(page.getByLabel('Email').getAttribute('aria-invalid')).resolves.toBe('true');
  });

  test('when a person follows a referral link, then the code is filled in and the new account is made with it; the header shows the unread count', async () => {
    const referrer = await web.newPage();
    await signUp(referrer);
    const me = await referrer.request.get('/api/user/me');
    const code = ((await me.json()) as { user: { referralCode: string } }).user.referralCode;
    const page = await web.newPage();
    await page.goto(`/signup?ref=${code}`);
    await expect(page.getByLabel('Referral code (optional)').inputValue()).resolves.toBe(code);
    await page.getByLabel('Email').fill(`referred-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('correct-horse-2');
    await page.getByLabel('Display name').fill('Referred');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByLabel('Signed in as').filter({ hasText: 'Referred' }).waitFor();
    await expect(page.getByLabel('Unread notifications').textContent()).resolves.toMatch(/^\d+$/);
  });
});

describeWithChromium('too many sign-in attempts in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    // Sign-in attempts are limited at twice the registration limit per address: 2 a minute here.
    web = await startWebHarness({ config: { RATE_LIMIT_REGISTER_PER_MIN: 1 } });
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  test('when the sign-in limit is reached, then the form says so with the time to wait', async () => {
    const page = await web.newPage();
    await page.goto('/signin');
    await page.getByLabel('Email').fill('nobody@example.com');
    await page.getByLabel('Password').fill('wrong-password');
    for (let i = 0; i < 3; i++) {
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').waitFor();
    }
    await page
      .getByRole('alert')
      .filter({ hasText: /Try again in \d+ s\./ })
      .waitFor();
  });
});
