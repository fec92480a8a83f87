import { backends } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import type { PricedCommunityMarket } from '../../../src/domain/community/community-market-service';

describe.each(backends())('the community market page on $name', (backend) => {
  let t: TestApp;
  let market: PricedCommunityMarket;
  beforeAll(async () => {
    t = await startTestApp(backend, { background: false });
    const creator = await registerAgent(t);
    market = await t.services.community.create(
      creator.id,
      {
        question: 'Will the <i>town & gown</i> bridge reopen by spring?',
        description: 'Resolves Open if the council reopens it before March 21.',
        category: 'Local',
        outcomes: ['Open', 'Still closed'],
        endDate: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      },
      new Date(),
    );
  });
  afterAll(async () => t.close());

  test('when JSON is asked for, then the community market comes back as JSON, by slug and by id', async () => {
    const res = await t.api.get(`/community-markets/${market.slug}`).set('Accept', 'application/json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ id: market.id, slug: market.slug, outcomes: ['Open', 'Still closed'], status: 'active' });
    const byId = await t.api.get(`/community-markets/${market.id}`).set('Accept', 'application/json');
    expect(byId.body.slug).toBe(market.slug);
  });

  test('when markdown is asked for, then the page names the question, the outcomes with their prices and token ids, and how to trade it', async () => {
    const res = await t.api.get(`/community-markets/${market.slug}`).set('Accept', 'text/markdown');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/markdown/);
    expect(res.text).toMatch(/^# Will the <i>town & gown<\/i> bridge reopen by spring\?\n/);
    expect(res.text).toContain(`Open 50.0% (token ${market.outcomeTokens[0]!.tokenId}), Still closed 50.0% (token ${market.outcomeTokens[1]!.tokenId})`);
    expect(res.text).toContain('trade it with buy_community_shares');
    expect(res.text).toContain('liquidity 100 dollars');
  });

  test('when a browser asks, then an HTML page with everything escaped is served', async () => {
    const res = await t.api.get(`/community-markets/${market.slug}`).set('Accept', 'text/html');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>Will the &lt;i&gt;town &amp; gown&lt;/i&gt; bridge reopen by spring?</h1>');
    expect(res.text).not.toContain('<i>town');
  });

  test('when the slug is unknown, then 404 NOT_FOUND; when the method is not GET, then 405', async () => {
    const res = await t.api.get('/community-markets/no-such-market').set('Accept', 'application/json');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
    expect((await t.api.post(`/community-markets/${market.slug}`)).status).toBe(405);
  });
});
