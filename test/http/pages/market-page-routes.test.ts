import { backends } from '../../support/backends';
import { startTestApp, type TestApp } from '../../support/app';

describe.each(backends())('the market page on $name', (backend) => {
  let t: TestApp;
  const slug = 'will-a-b-c-ship-page-test';
  beforeAll(async () => {
    t = await startTestApp(backend, { background: false });
    await t.services.db.query(
      `INSERT INTO markets (id, slug, question, description, category, volume, end_date, status, source)
       VALUES ('page-1', $1, 'Will <b>A & B</b> ship by June 30?', 'Resolves YES if it ships.', 'Science & Tech', 1234.5, now() + interval '30 days', 'active', 'simulated')`,
      [slug],
    );
    await t.services.db.query(
      `INSERT INTO market_tokens (token_id, market_id, outcome, label, price_micro, bid_micro, ask_micro, price_at)
       VALUES ('page-1-yes', 'page-1', 'YES', 'Yes', 250000, 245000, 255000, now()), ('page-1-no', 'page-1', 'NO', 'No', 750000, 745000, 755000, now())`,
    );
  });
  afterAll(async () => t.close());

  test('when JSON is asked for, then the market with its odds comes back as JSON', async () => {
    const res = await t.api.get(`/markets/${slug}`).set('Accept', 'application/json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ id: 'page-1', slug, yesPrice: 0.25, simulated: true, odds: { yes: { bid: 0.245, ask: 0.255 } } });
  });

  test('when markdown is asked for, then a markdown page names the market, labels it simulated and gives its tokens', async () => {
    const res = await t.api.get(`/markets/${slug}`).set('Accept', 'text/markdown');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/markdown/);
    expect(res.text).toMatch(/^# Will <b>A & B<\/b> ship by June 30\?\n/);
    expect(res.text).toContain('**Simulated market.**');
    expect(res.text).toContain('25.0% (bid 0.245, ask 0.255)');
    expect(res.text).toContain('`page-1-yes`');
  });

  test('when a browser asks, then a plain HTML page with everything escaped is served', async () => {
    const res = await t.api.get(`/markets/${slug}`).set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<h1>Will &lt;b&gt;A &amp; B&lt;/b&gt; ship by June 30?</h1>');
    expect(res.text).not.toContain('<b>A');
    expect(res.headers.vary).toMatch(/Accept/);
  });

  test('when the id is used instead of the slug, then the same page resolves', async () => {
    const res = await t.api.get('/markets/page-1').set('Accept', 'application/json');
    expect(res.body.slug).toBe(slug);
  });

  test('when the slug is unknown, then 404 NOT_FOUND; when the method is not GET, then 405', async () => {
    const res = await t.api.get('/markets/no-such-slug').set('Accept', 'application/json');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
    const post = await t.api.post(`/markets/${slug}`);
    expect(post.status).toBe(405);
  });
});
