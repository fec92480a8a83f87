import { seedMarket, resolveMarket } from '../support/markets';
import { registerAgent } from '../support/app';
import { describeWithChromium, expectNoSeriousAxeViolations, pageErrors, signUp, startWebHarness, type WebHarness } from '../support/browser';

/** Market discussion in Chromium (issue 36 item 7): comments by people and agents, hiding by a creator, rationales at close. */
describeWithChromium('market discussion in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness({ background: false });
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  test('when a person comments on a market, then the comment shows as text with their name, an agent’s comment beside it; once closed, the agent’s rationale shows too', async () => {
    const market = await seedMarket(web.app.services.db);
    const agent = await registerAgent(web.app, 'Forecaster');
    const bearer = { Authorization: `Bearer ${agent.apiKey}` };
    expect((await web.app.api.post('/api/comments').set(bearer).send({ marketId: market.id, body: 'Agents read the <b>news</b> first.' })).status).toBe(201);
    expect((await web.app.api.post('/api/forecasts').set(bearer).send({ marketId: market.id, probability: 0.8, rationale: 'Three polls agree.' })).status).toBe(
      200,
    );

    const page = await web.newPage();
    await signUp(page, { displayName: 'Commenter' });
    await page.goto(`/markets/${market.slug}`);
    // The discussion reads its comments once scrolled near (a market's first view costs no read for it).
    await page.getByRole('heading', { level: 2, name: 'Discussion' }).scrollIntoViewIfNeeded();
    const comments = page.getByRole('list', { name: 'Comments' });
    // Markup in a comment is shown as typed, never rendered.
    await comments.getByText('Agents read the <b>news</b> first.').waitFor();
    expect(await comments.locator('b').count()).toBe(0);
    await expect(comments.getByText('agent', { exact: true }).count()).resolves.toBe(1);

    await page.getByLabel('Your comment').fill('I think the polls are wrong.\nWatch the turnout.');
    await page.getByRole('button', { name: 'Post comment' }).click();
    await comments
      .getByRole('listitem')
      .first()
      .getByText(/I think the polls are wrong\.\s+Watch the turnout\./)
      .waitFor();
    await expect(comments.getByRole('listitem').first().getByRole('link').textContent()).resolves.toBe('Commenter');
    await expect(page.getByLabel('Your comment').inputValue()).resolves.toBe('');
    expect(await page.getByText('Forecasters’ reasoning').count()).toBe(0);
    await expectNoSeriousAxeViolations(page);

    await resolveMarket(web.app.services.db, market.id, 'YES');
    await page.reload();
    await page.getByRole('heading', { level: 2, name: 'Discussion' }).scrollIntoViewIfNeeded();
    await page.getByRole('heading', { level: 3, name: 'Forecasters’ reasoning' }).waitFor();
    await page.getByText('Three polls agree.').waitFor();
    await page.getByText('80.0% YES').waitFor();
    expect(pageErrors(page)).toEqual([]);
  });

  test('when the creator of a community market hides a comment, then it disappears from the discussion; a signed-out visitor reads it but cannot post', async () => {
    const creator = await web.newPage();
    await signUp(creator, { displayName: 'Market Host' });
    const made = await creator.request.post('/api/user-markets', {
      headers: { Origin: web.baseUrl },
      data: {
        question: 'Will the regatta start on time?',
        category: 'Local',
        outcomes: ['Yes', 'No'],
        endDate: new Date(Date.now() + 7 * 86400_000).toISOString(),
      },
    });
    expect(made.status()).toBe(200);
    const market = (await made.json()) as { id: string; slug: string };
    const agent = await registerAgent(web.app, 'Spammer');
    const bearer = { Authorization: `Bearer ${agent.apiKey}` };
    await web.app.api.post('/api/comments').set(bearer).send({ marketId: market.id, body: 'Cheap watches here!' });
    await web.app.api.post('/api/comments').set(bearer).send({ marketId: market.id, body: 'The wind forecast is calm.' });

    await creator.goto(`/community-markets/${market.slug}`);
    await creator.getByRole('heading', { level: 2, name: 'Discussion' }).scrollIntoViewIfNeeded();
    const comments = creator.getByRole('list', { name: 'Comments' });
    const spam = comments.getByRole('listitem').filter({ hasText: 'Cheap watches here!' });
    await spam.waitFor();
    await spam.getByRole('button', { name: 'Hide' }).click();
    await spam.waitFor({ state: 'detached' });
    await comments.getByText('The wind forecast is calm.').waitFor();

    const visitor = await web.newPage();
    await visitor.goto(`/community-markets/${market.slug}`);
    await visitor.getByRole('heading', { level: 2, name: 'Discussion' }).scrollIntoViewIfNeeded();
    await visitor.getByText('The wind forecast is calm.').waitFor();
    expect(await visitor.getByText('Cheap watches here!').count()).toBe(0);
    expect(await visitor.getByRole('button', { name: 'Hide' }).count()).toBe(0);
    expect(await visitor.getByLabel('Your comment').count()).toBe(0);
    await visitor.getByRole('link', { name: 'Log in or create an account' }).waitFor();
    await expectNoSeriousAxeViolations(visitor);
    expect(pageErrors(visitor)).toEqual([]);
  });
});
