import {
  describeWithChromium,
  expectNoSeriousAxeViolations,
  openFromAccountMenu,
  pageErrors,
  signUp,
  startWebHarness,
  type WebHarness,
} from '../support/browser';

type Listed = { markets: Array<{ slug: string; question: string; yesPrice?: number }> };

/** Onboarding and sharing in Chromium (issue 36 item 8): the first visit's explainer, a first trade, invite and share links. */
describeWithChromium('onboarding and sharing in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness({ background: false });
    await web.app.services.marketSync.runOnce();
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  test('when someone visits for the first time, then the home page says what a share pays, that the money is virtual, and suggests a first trade with its payout; closed once, it stays closed', async () => {
    const top = ((await web.app.api.get('/api/markets').query({ sort: 'volume', limit: 1 })).body as Listed).markets[0]!;
    const page = await web.newPage();
    await page.goto('/');
    const welcome = page.getByRole('region', { name: 'New here? How it works' });
    await welcome.getByText(/A YES share pays \$1 if the answer is YES/).waitFor();
    await welcome.getByText(/Virtual money only\./).waitFor();
    const payout = `$${(10 / top.yesPrice!).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
    await welcome.getByText(new RegExp(`\\$10\\.00 on YES would pay \\${payout} if it happens`)).waitFor();
    await expect(welcome.getByRole('link', { name: top.question }).getAttribute('href')).resolves.toBe(`/markets/${top.slug}`);
    await welcome.getByRole('link', { name: 'Create a free account' }).waitFor();
    await expectNoSeriousAxeViolations(page);

    await welcome.getByRole('button', { name: 'Got it' }).click();
    await welcome.waitFor({ state: 'detached' });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Prediction markets' }).waitFor();
    expect(await page.getByRole('region', { name: 'New here? How it works' }).count()).toBe(0);
    expect(pageErrors(page)).toEqual([]);
  });

  test('when a person opens their invite link from settings, then a friend signing up with it has the referral code filled in and the inviter is told; the header links to their own profile', async () => {
    const inviter = await web.newPage();
    const me = await signUp(inviter, { displayName: 'Inviter' });
    const { user } = (await (await inviter.request.get('/api/user/me')).json()) as { user: { id: string; referralCode: string } };
    await openFromAccountMenu(inviter, 'My profile');
    await inviter.waitForURL(`**/traders/${user.id}`);
    await inviter.getByRole('heading', { level: 1, name: me.displayName }).waitFor();

    await inviter.goto('/settings');
    const link = await inviter.getByLabel('Your invite link', { exact: true }).textContent();
    expect(link).toBe(`${web.baseUrl}/signup?ref=${user.referralCode}`);
    await expectNoSeriousAxeViolations(inviter);

    const friend = await web.newPage();
    await friend.goto(link!.replace(web.baseUrl, ''));
    await expect(friend.getByLabel('Referral code (optional)').inputValue()).resolves.toBe(user.referralCode);
    await friend.getByLabel('Email').fill(`friend-${Date.now()}@example.com`);
    await friend.getByLabel('Password').fill('correct-horse-1');
    await friend.getByLabel('Display name').fill('Friend');
    await friend.getByRole('button', { name: 'Sign up' }).click();
    await friend.getByLabel('Signed in as').filter({ hasText: 'Friend' }).waitFor();
    const notes = (await (await inviter.request.get('/api/notifications')).json()) as { notifications: Array<{ type: string }> };
    expect(notes.notifications.map((n) => n.type)).toContain('referral');
  });

  test('when a person shares a market or a profile in a browser without a share sheet, then its link is copied', async () => {
    const page = await web.newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: web.baseUrl });
    await signUp(page, { displayName: 'Sharer' });
    const m = ((await web.app.api.get('/api/markets').query({ limit: 1 })).body as Listed).markets[0]!;
    await page.goto(`/markets/${m.slug}`);
    await page.getByRole('button', { name: 'Share this market' }).click();
    await page.getByText('Link copied.').waitFor();
    await expect(page.evaluate('navigator.clipboard.readText()') as Promise<string>).resolves.toBe(`${web.baseUrl}/markets/${m.slug}`);

    const { user } = (await (await page.request.get('/api/user/me')).json()) as { user: { id: string } };
    await page.goto(`/traders/${user.id}`);
    await page.getByRole('button', { name: 'Share this profile' }).click();
    await page.getByText('Link copied.').waitFor();
    await expect(page.evaluate('navigator.clipboard.readText()') as Promise<string>).resolves.toBe(`${web.baseUrl}/traders/${user.id}`);
    expect(pageErrors(page)).toEqual([]);
  });
});
