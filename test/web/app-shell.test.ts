import {
  describeWithChromium,
  expectNoSeriousAxeViolations,
  expectNoSideScroll,
  pageErrors,
  signUp,
  startWebHarness,
  type WebHarness,
  signOut,
} from '../support/browser';

describeWithChromium('web app shell in Chromium', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness();
  }, 120_000);
  afterAll(async () => {
    await web?.close();
  });

  test("when the home page opens without JavaScript, then it shows the markets the service drew in the app's first view", async () => {
    const page = await web.newPage({ javaScript: false });
    await page.goto('/');
    const browse = page.locator('section[aria-labelledby="browse-heading"]');
    await expect(browse.getByRole('link').count()).resolves.toBeGreaterThan(0);
    const [top] = await web.app.services.db.query<{ question: string }>(
      "SELECT question FROM markets WHERE status = 'active' ORDER BY volume DESC NULLS LAST, id LIMIT 1",
    );
    await expect(browse.getByRole('link').first().textContent()).resolves.toContain(top!.question);
  });

  test('when the home page opens, then the app starts from the markets its first view was drawn from, without reading them again', async () => {
    const page = await web.newPage();
    const lists: string[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname === '/api/markets' && url.searchParams.get('sort') === 'volume') lists.push(url.search);
    });
    await page.goto('/');
    // The app has run once the view's fold (the server's document) is gone: its first render replaced the root.
    await page.getByRole('list', { name: 'Trending' }).waitFor();
    await page.locator('details.server-page').waitFor({ state: 'detached' });
    await expect(page.getByRole('list', { name: 'Markets' }).getByRole('link').count()).resolves.toBe(20);
    expect(lists).toEqual([]);
    expect(pageErrors(page)).toEqual([]);
  });

  test('when the home page opens, then the app replaces the server-rendered page, runs under the CSP without errors and shows sign-in links', async () => {
    const page = await web.newPage();
    await page.goto('/');
    await page.getByRole('heading', { level: 1, name: 'Prediction markets' }).waitFor();
    // The heading is in the service's first view already; the app has run once its fold is gone.
    await page.locator('details.server-page').waitFor({ state: 'detached' });
    await expect(page.getByRole('link', { name: 'Sign in' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('link', { name: 'Sign up' }).isVisible()).resolves.toBe(true);
    // The documents' landing text was the server's; the app replaced it.
    await expect(page.getByText('Agent quickstart').count()).resolves.toBe(0);
    expect(pageErrors(page)).toEqual([]);
    await expectNoSeriousAxeViolations(page);
  });

  test('when a person signs up, then the header shows their name, balance and level, and signing out returns to the sign-in links', async () => {
    const page = await web.newPage();
    const person = await signUp(page, { displayName: 'Shell Tester' });
    await expect(page.getByLabel('Signed in as').textContent()).resolves.toBe(person.displayName);
    await expect(page.getByLabel('Available cash').textContent()).resolves.toBe('$1,000.00');
    await expect(page.getByLabel('Level').textContent()).resolves.toMatch(/^Level \d+$/);
    await signOut(page);
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    const res = await page.request.get('/api/user/balance');
    expect(res.status()).toBe(401);
    expect(pageErrors(page)).toEqual([]);
  });

  test('when a signed-out person opens the portfolio, then they are sent to sign in and come back to it afterwards', async () => {
    const page = await web.newPage();
    const person = await signUp(page);
    await signOut(page);
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    await page.goto('/portfolio');
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).searchParams.get('next')).toBe('/portfolio');
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/password/i);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Portfolio' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/portfolio');
  });

  test("when JavaScript is off, then a market page shows the app's first view (question, prices, chart) and the document with the links the server rendered", async () => {
    const page = await web.newPage({ javaScript: false });
    const [row] = await web.app.services.db.query<{ slug: string; question: string }>("SELECT slug, question FROM markets WHERE status = 'active' LIMIT 1");
    await page.goto(`/markets/${row!.slug}`);
    await page.getByRole('heading', { level: 1, name: row!.question }).waitFor();
    await expect(page.locator('.side.yes .side-price').textContent()).resolves.toMatch(/^[\d.]+¢$/);
    await expect(page.locator('.side.yes .muted').textContent()).resolves.toMatch(/bid [\d.]+¢ · ask [\d.]+¢/);
    // The chart's line, drawn by the service (uPlot draws it once the app runs).
    await expect(page.locator('.chart svg polyline').getAttribute('points')).resolves.toMatch(/^[\d.]+,[\d.]+ /);
    // The server's own page, folded under the view.
    await page.getByText('This page as a document (for agents)').click();
    await expect(page.getByText(/^YES: /).textContent()).resolves.toMatch(/bid [\d.]+, ask [\d.]+/);
    await page.getByRole('link', { name: 'JSON' }).waitFor();
    await page.goto('/portfolio');
    await page.getByText('This page is part of the web app and needs JavaScript.', { exact: false }).waitFor();
  });

  test("when a market page opens, then nothing of the app is fetched before its view is drawn, and the chart's modules are fetched with the entry, not after it", async () => {
    const page = await web.newPage();
    // The page's clock at the first frame that draws the view's chart (a frame's rendering follows its callbacks).
    await page.addInitScript(`
      const frame = () => {
        if (document.querySelector('.chart svg')) window.viewDrawnAt = performance.now();
        else requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    `);
    const [row] = await web.app.services.db.query<{ slug: string }>("SELECT slug FROM markets WHERE status = 'active' LIMIT 1");
    await page.goto(`/markets/${row!.slug}`);
    await page.locator('details.server-page').waitFor({ state: 'detached' });
    const timing = await page.evaluate<{ drawn: number | null; scripts: Array<{ path: string; startTime: number; responseEnd: number }> }>(`({
      drawn: window.viewDrawnAt ?? null,
      scripts: performance.getEntriesByType('resource')
        .filter((e) => new URL(e.name).pathname.startsWith('/assets/') && e.name.endsWith('.js'))
        .map((e) => ({ path: new URL(e.name).pathname, startTime: e.startTime, responseEnd: e.responseEnd })),
    })`);
    const entry = timing.scripts.find((s) => /^\/assets\/index-[^/]+\.js$/.test(s.path));
    const chart = timing.scripts.find((s) => /^\/assets\/price-chart-[^/]+\.js$/.test(s.path));
    expect(timing.drawn).not.toBeNull();
    expect(entry).toBeDefined();
    expect(chart).toBeDefined();
    // Only the boot script is fetched before the view is drawn; the entry and the chart's module start after it, together
    // (the chart's module before the entry has arrived: the boot script asked for it, not the entry's import).
    for (const s of timing.scripts.filter((x) => !x.path.startsWith('/assets/boot-'))) expect(s.startTime).toBeGreaterThan(timing.drawn!);
    expect(chart!.startTime).toBeLessThan(entry!.responseEnd);
    expect(pageErrors(page)).toEqual([]);
  });

  test('when the pages are 390 px wide, then none scrolls sideways', async () => {
    const page = await web.newPage({ width: 390 });
    for (const path of ['/', '/signin', '/signup']) {
      await page.goto(path);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await expectNoSideScroll(page);
    }
  });
});
