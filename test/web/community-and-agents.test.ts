import {
  openFromAccountMenu,
  openFromMore,
  describeWithChromium,
  expectNoSeriousAxeViolations,
  expectNoSideScroll,
  pageErrors,
  signUp,
  startWebHarness,
  tabTo,
  type WebHarness,
} from '../support/browser';

/** Community markets, agent accounts and account settings, clicked through in Chromium. */
describeWithChromium('community markets, agents and settings in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness({ background: false });
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  const balanceWith = (key: string) => fetch(`${web.baseUrl}/api/user/balance`, { headers: { Authorization: `Bearer ${key}` } });

  test('when a person creates a community market, then the limits are shown and enforced inline, its page shows their text as text and that their own trades do not count, and only they can void it before its end date, with a reason', async () => {
    const page = await web.newPage();
    await signUp(page, { displayName: 'Market Maker' });
    await page.getByRole('link', { name: 'Community' }).click();
    await page.getByRole('heading', { level: 1, name: 'Community markets' }).waitFor();
    await page.getByRole('button', { name: 'Create a market' }).click();
    await page.getByText('10 to 200 characters · 0 so far').waitFor();
    await page.getByText('At most 1000 characters · 0 so far').waitFor();
    await page.getByText('Outcomes (2 to 10, each 1 to 50 characters)').waitFor();

    // Nothing is sent while a field breaks a limit; each says what is wrong next to it.
    let creates = 0;
    page.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/user-markets') creates += 1;
    });
    await page.getByLabel('Question', { exact: true }).fill('Too short');
    await page.getByRole('textbox', { name: 'Outcome 2' }).fill('Yes');
    await page.getByLabel('End date').fill('2020-01-01T12:00');
    await page.getByRole('button', { name: 'Create market' }).click();
    await page.getByText('The question needs 10 to 200 characters (now 9).').waitFor();
    await page.getByText('The category needs 1 to 100 characters.').waitFor();
    await page.getByText('The outcomes must all be different.').waitFor();
    await page.getByText('The end date must be in the future.').waitFor();
    await expect(page.getByLabel('Question', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByLabel('Question', { exact: true }).getAttribute('maxlength')).resolves.toBe('200');
    await expect(page.getByLabel('Resolution criteria (optional)').getAttribute('maxlength')).resolves.toBe('1000');
    await expect(page.getByRole('textbox', { name: 'Outcome 1' }).getAttribute('maxlength')).resolves.toBe('50');
    expect(creates).toBe(0);
    await expectNoSeriousAxeViolations(page);

    const question = 'Will <b>bold</b> & <script>x</script> text stay plain?';
    await page.getByLabel('Question', { exact: true }).fill(question);
    await page.getByLabel('Resolution criteria (optional)').fill('Resolves <i>Maybe</i> when unsure.');
    await page.getByLabel('Category', { exact: true }).fill('Meta');
    await page.getByRole('textbox', { name: 'Outcome 2' }).fill('No');
    await page.getByRole('button', { name: 'Add an outcome' }).click();
    await page.getByRole('textbox', { name: 'Outcome 3' }).fill('Maybe');
    for (let i = 4; i <= 10; i += 1) await page.getByRole('button', { name: 'Add an outcome' }).click();
    await expect(page.getByRole('button', { name: 'Add an outcome' }).count()).resolves.toBe(0);
    for (let i = 10; i >= 4; i -= 1) await page.getByRole('button', { name: `Remove outcome ${i}` }).click();
    await page.getByLabel('End date').fill('2031-06-30T12:00');
    await page.getByRole('button', { name: 'Create market' }).click();

    await page.getByRole('heading', { level: 1, name: question }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/community-markets\/[^/]+$/);
    await expect(page.locator('main b, main i, main script').count()).resolves.toBe(0);
    await page.getByText('Resolves <i>Maybe</i> when unsure.').waitFor();
    await expect(page.getByRole('list', { name: 'Outcomes' }).getByRole('listitem').allTextContents()).resolves.toEqual([
      'Yes · 33.3¢',
      'No · 33.3¢',
      'Maybe · 33.3¢',
    ]);
    await expectNoSeriousAxeViolations(page);
    const marketUrl = page.url();

    // Someone else sees the market but no way to resolve it.
    const other = await web.newPage();
    await signUp(other);
    await other.goto(marketUrl);
    await other.getByRole('heading', { level: 1, name: question }).waitFor();
    await other.getByRole('link', { name: 'Market Maker' }).waitFor();
    await expect(other.getByRole('button', { name: 'Resolve market' }).count()).resolves.toBe(0);

    await page.getByText(/creator's own trades and positions in this market do not count/).waitFor();
    // Before its end date the creator can only void it, and must say why.
    await expect(page.getByRole('radio', { name: 'Maybe' }).count()).resolves.toBe(0);
    await page.getByRole('radio', { name: /^Void/ }).check();
    await expect(page.getByRole('button', { name: 'Resolve market' }).isDisabled()).resolves.toBe(true);
    await page.getByLabel('Reason for voiding').fill('The question turned out to be ambiguous.');
    await page.getByRole('button', { name: 'Resolve market' }).click();
    await page.getByRole('status').filter({ hasText: 'Resolved void' }).filter({ hasText: 'Voided: The question turned out to be ambiguous.' }).waitFor();
    await expect(page.getByRole('button', { name: 'Resolve market' }).count()).resolves.toBe(0);

    await page.getByRole('link', { name: '← Community markets' }).click();
    await page.getByLabel('Status').selectOption('resolved');
    await page.getByLabel('Mine only').check();
    const list = page.getByRole('list', { name: 'Community markets' });
    await list.getByRole('link', { name: question }).waitFor();
    await list.getByText('Meta · 3 outcomes · resolved: VOID').waitFor();
    await page.getByLabel('Filter by category').fill('No such category');
    await page.getByText('No community markets match.').waitFor();
    expect(pageErrors(page)).toEqual([]);
  });

  test('when a person creates an agent account, then its key is shown once with copy, their own session stays theirs, and the key works on the API until it is rotated in settings', async () => {
    const page = await web.newPage();
    const person = await signUp(page, { displayName: 'Agent Builder' });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: web.baseUrl });
    await openFromMore(page, 'Agents');
    await page.getByRole('heading', { level: 1, name: 'Agents' }).waitFor();
    for (const [name, href] of [
      ['OpenAPI document', '/openapi.json'],
      ['llms.txt', '/llms.txt'],
      ['Agent card', '/.well-known/agent-card.json'],
    ] as const) {
      await expect(page.getByRole('link', { name, exact: true }).first().getAttribute('href')).resolves.toBe(href);
    }
    await expectNoSeriousAxeViolations(page);

    await page.getByLabel('Agent name').fill('Builder Bot');
    await page.getByLabel('Agent email').fill(`bot-${Date.now()}@example.com`);
    await page.getByLabel('Agent password').fill('agent-password-1');
    await page.getByLabel('Description (optional)').fill('Buys <b>everything</b>.');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('heading', { level: 2, name: 'Agent Builder Bot created' }).waitFor();
    const key = (await page.getByRole('group', { name: 'API key' }).locator('code').textContent())!;
    expect(key).toMatch(/^svc_[0-9a-f]{32}$/);
    await page.getByRole('button', { name: 'Copy API key' }).click();
    await page.getByText('Copied.').first().waitFor();
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(key);

    // The person is still signed in as themself, not as the agent.
    await expect(page.getByLabel('Signed in as').textContent()).resolves.toBe(person.displayName);
    const me = (await (await page.request.get('/api/user/me')).json()) as { user: { displayName: string; isAgent: boolean } };
    expect(me.user).toMatchObject({ displayName: person.displayName, isAgent: false });

    const config = JSON.parse((await page.getByLabel('MCP client configuration JSON').textContent())!) as {
      mcpServers: Record<string, { url: string; headers: { Authorization: string } }>;
    };
    expect(Object.values(config.mcpServers)[0]).toEqual({ url: `${web.baseUrl}/mcp`, headers: { Authorization: `Bearer ${key}` } });
    await expect(page.getByLabel('curl quickstart commands').textContent()).resolves.toContain(`KEY=${key}`);

    const res = await balanceWith(key);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { balance: number }).balance).toBe(1000);
    await expectNoSeriousAxeViolations(page);

    // Settings: rotate the agent's key with its current one; the old key stops working at once.
    await openFromAccountMenu(page, 'Settings');
    await page.getByRole('heading', { level: 1, name: 'Account settings' }).waitFor();
    await page.getByLabel("Agent's current API key").fill('svc_00000000000000000000000000000000');
    await page.getByRole('button', { name: 'Rotate key' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /invalid/i })
      .waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings');
    await page.getByLabel("Agent's current API key").fill(key);
    await page.getByRole('button', { name: 'Rotate key' }).click();
    const fresh = (await page.getByRole('group', { name: 'New API key' }).locator('code').textContent())!;
    expect(fresh).toMatch(/^svc_[0-9a-f]{32}$/);
    expect(fresh).not.toBe(key);
    expect((await balanceWith(key)).status).toBe(401);
    expect((await balanceWith(fresh)).status).toBe(200);
    await expectNoSeriousAxeViolations(page);
    expect(pageErrors(page)).toEqual([]);
  });

  test('when a person changes their display name and password in settings, then the header shows the new name and only the new password signs in', async () => {
    const page = await web.newPage();
    const person = await signUp(page, { displayName: 'Old Name' });
    await openFromAccountMenu(page, 'Settings');
    await page.getByRole('heading', { level: 1, name: 'Account settings' }).waitFor();
    await expect(page.getByLabel('Display name', { exact: true }).inputValue()).resolves.toBe('Old Name');
    await page.getByLabel('Display name', { exact: true }).fill('N');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByText('The display name needs 2 to 20 characters.').waitFor();
    await page.getByLabel('Display name', { exact: true }).fill('New <i>Name</i>');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByLabel('Signed in as').filter({ hasText: 'New <i>Name</i>' }).waitFor();
    await expect(page.locator('header i').count()).resolves.toBe(0);
    await expectNoSeriousAxeViolations(page);

    await page.getByLabel('Current password').fill('not-the-password');
    await page.getByLabel('New password', { exact: true }).fill('brand-new-password');
    await page.getByLabel('New password again').fill('brand-new-password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /password/i })
      .waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings');
    await page.getByLabel('Current password').fill(person.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText(/^Password changed\./).waitFor();

    const login = (password: string) =>
      fetch(`${web.baseUrl}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', Origin: web.baseUrl },
        body: JSON.stringify({ email: person.email, password }),
      });
    expect((await login(person.password)).status).toBe(401);
    expect((await login('brand-new-password')).status).toBe(200);
    expect(pageErrors(page).filter((e) => !/status of (400|401)/.test(e))).toEqual([]);
  });

  test('when a person signs out of every session, then this browser and their other browser are both signed out', async () => {
    const page = await web.newPage();
    const person = await signUp(page, { displayName: 'Two Browsers' });
    const other = await web.newPage();
    await other.goto('/signin');
    await other.getByLabel('Email').fill(person.email);
    await other.getByLabel('Password').fill(person.password);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await other.getByLabel('Signed in as').filter({ hasText: person.displayName }).waitFor();

    await page.goto('/settings');
    await page.getByRole('button', { name: 'Sign out of every session' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect((await page.request.get('/api/user/me')).status()).toBe(401);
    expect((await other.request.get('/api/user/me')).status()).toBe(401);
  });

  test('when a person deletes their account with their password, then they are back on the home page signed out, and the session, the sign-in and the profile are gone', async () => {
    const page = await web.newPage();
    const person = await signUp(page, { displayName: 'Leaving Soon' });
    const { user } = (await (await page.request.get('/api/user/me')).json()) as { user: { id: string } };
    const cookie = (await page.context().cookies(web.baseUrl)).map((c) => `${c.name}=${c.value}`).join('; ');
    await openFromAccountMenu(page, 'Settings');
    await page.getByRole('heading', { level: 2, name: 'Delete your account' }).waitFor();

    await page.getByLabel('Password to confirm deletion').fill('not-my-password');
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /password/i })
      .waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings');
    await expect(page.getByLabel('Signed in as').textContent()).resolves.toBe(person.displayName);

    await page.getByLabel('Password to confirm deletion').fill(person.password);
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    expect((await page.request.get('/api/user/me')).status()).toBe(401);
    expect((await fetch(`${web.baseUrl}/api/user/me`, { headers: { Cookie: cookie } })).status).toBe(401);
    const login = await fetch(`${web.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', Origin: web.baseUrl },
      body: JSON.stringify({ email: person.email, password: person.password }),
    });
    expect(login.status).toBe(401);
    await page.goto(`/traders/${user.id}`);
    await page.getByRole('alert').waitFor();
    // The refused deletion (400) and the gone profile (404) are expected answers; nothing else went wrong.
    expect(pageErrors(page).filter((e) => !/status of (400|404)/.test(e))).toEqual([]);
  });

  test('when a person uses the keyboard alone, then they can create an agent, copy its key and void their own community market with a reason', async () => {
    const page = await web.newPage();
    await signUp(page, { displayName: 'Keys Only' });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: web.baseUrl });
    await page.goto('/agents');
    await page.getByRole('heading', { level: 1, name: 'Agents' }).waitFor();
    await tabTo(page, /^Agent name$/);
    await page.keyboard.type('Keyboard Bot');
    await tabTo(page, /^Agent email$/);
    await page.keyboard.type(`kbd-${Date.now()}@example.com`);
    await tabTo(page, /^Agent password$/);
    await page.keyboard.type('agent-password-1');
    await tabTo(page, /^Create agent$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 2, name: 'Agent Keyboard Bot created' }).waitFor();
    await tabTo(page, /^Copy API key$/);
    await page.keyboard.press('Enter');
    await page.getByText('Copied.').first().waitFor();
    const key = (await page.getByRole('group', { name: 'API key' }).locator('code').textContent())!;
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(key);

    const created = await page.request.post('/api/user-markets', {
      headers: { Origin: web.baseUrl },
      data: { question: 'Will the keyboard resolve this market?', category: 'Keys', outcomes: ['Yes', 'No'], endDate: '2031-01-01T00:00:00Z' },
    });
    expect(created.status()).toBe(200);
    const { slug } = (await created.json()) as { slug: string };
    await page.goto(`/community-markets/${slug}`);
    await page.getByRole('button', { name: 'Resolve market' }).waitFor();
    await tabTo(page, /^Void/);
    await page.keyboard.press('Space');
    await tabTo(page, /^Reason for voiding$/);
    await page.keyboard.type('Voided from the keyboard.');
    await tabTo(page, /^Resolve market$/);
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Resolved void' }).waitFor();
    expect(pageErrors(page)).toEqual([]);
  });

  test('when the community, agents and settings pages are 390 px wide, then none scrolls sideways', async () => {
    const page = await web.newPage({ width: 390 });
    await signUp(page);
    await page.goto('/community-markets');
    await page.getByRole('button', { name: 'Create a market' }).click();
    await page.getByLabel('Question', { exact: true }).fill('Will the phone layout hold at 390 px?');
    await page.getByLabel('Category', { exact: true }).fill('Layout');
    await page.getByLabel('End date').fill('2031-01-01T00:00');
    await page.getByRole('button', { name: 'Create market' }).click();
    await page.getByRole('heading', { level: 1, name: 'Will the phone layout hold at 390 px?' }).waitFor();
    await expectNoSideScroll(page);
    for (const path of ['/community-markets', '/agents', '/settings']) {
      await page.goto(path);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await expectNoSideScroll(page);
    }
  });
});
