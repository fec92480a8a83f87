import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { ManualClock } from '../support/identity';
import { rpcCall } from '../support/rpc';
import { SimulatedFeed } from '../../src/market-data/simulated/simulated-feed';
import { newsEvents } from '../../src/market-data/simulated/information';

type Item = { id: string; marketId: string; publishedAt: string; headline: string; body: string; question: string };
type Page = { news: Item[]; nextCursor: string | null };

describe.each(backends())('list_news on $name', (backend) => {
  let t: TestApp;
  const clock = new ManualClock();

  beforeAll(async () => {
    t = await startTestApp(backend, { clock, background: false, config: { SIM_INFORMATION: 'on', SIM_SPEED: 60 } });
    await t.services.marketSync.runOnce();
  });
  afterAll(async () => t.close());

  const news = async (query: Record<string, string | number>): Promise<Page> => {
    const res = await t.api.get('/api/news').query(query);
    expect(res.status).toBe(200);
    return res.body as Page;
  };

  test('when news is listed, then items come newest first, none after now, and pages follow nextCursor without gaps or repeats', async () => {
    const whole = await news({ limit: 15 });
    expect(whole.news).toHaveLength(15);
    const now = clock.now().getTime();
    const times = whole.news.map((n) => Date.parse(n.publishedAt));
    for (const [i, time] of times.entries()) {
      expect(time).toBeLessThanOrEqual(now);
      if (i > 0) expect(time).toBeLessThanOrEqual(times[i - 1]!);
    }
    const paged: Item[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 3; page++) {
      const body: Page = await news({ limit: 5, ...(cursor ? { cursor } : {}) });
      paged.push(...body.news);
      cursor = body.nextCursor;
      expect(cursor).not.toBeNull();
    }
    expect(paged).toEqual(whole.news);
    for (const item of whole.news) {
      expect(item.headline).toContain(item.question);
      // The body weighs the report in varied words (issue 49 item 2), always naming the question it bears on.
      expect(item.body).toContain(`"${item.question}"`);
    }
  });

  test('when a market is named, then only its news is shown, never an item published after now; an unknown market has none', async () => {
    const feed = t.services.feed as SimulatedFeed;
    const now = clock.now().getTime();
    // A market with news out and news still to come.
    const first = (await news({ limit: 20 })).news.find((n) =>
      newsEvents(feed.drawsOf(feed.spec(Number(n.marketId.slice(4)))), feed.spec(Number(n.marketId.slice(4)))).some((e) => e.tMs > now),
    )!;
    expect(first).toBeDefined();
    const spec = feed.spec(Number(first.marketId.slice(4)));
    const events = newsEvents(feed.drawsOf(spec), spec);
    const published = events.filter((e) => e.tMs <= now);
    const future = events.find((e) => e.tMs > now);
    const mine = await news({ marketId: first.marketId, limit: 100 });
    expect(mine.news.map((n) => n.id)).toEqual(published.map((e) => `news-${spec.id}-${e.j}`).reverse());
    expect(mine.nextCursor).toBeNull();
    // Once the clock passes the next event, it is published (and shown first).
    expect(future).toBeDefined();
    clock.advance(future!.tMs - now);
    try {
      const later = await news({ marketId: first.marketId, limit: 100 });
      expect(later.news[0]!.id).toBe(`news-${spec.id}-${future!.j}`);
      expect(later.news).toHaveLength(mine.news.length + 1);
    } finally {
      clock.advance(now - future!.tMs);
    }
    expect((await news({ marketId: 'sim-999999999' })).news).toEqual([]);
    expect((await news({ marketId: 'no-such-market' })).news).toEqual([]);
  });

  test('when since and until are given, then only items published in (since, until] are shown', async () => {
    const page = (await news({ limit: 10 })).news;
    const until = page[2]!.publishedAt;
    const since = page[7]!.publishedAt;
    const window = await news({ since, until, limit: 100 });
    expect(window.news.map((n) => n.id)).toEqual(page.slice(2, 7).map((n) => n.id));
  });

  test('when called over JSON-RPC, then the result is the REST body; a bad cursor is a VALIDATION_ERROR on both', async () => {
    const rest = await news({ limit: 3 });
    const rpc = await rpcCall(t, 'list_news', { limit: 3 });
    expect(rpc.result).toEqual(rest);
    const bad = await t.api.get('/api/news').query({ cursor: 'nope' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    const otherList = Buffer.from(JSON.stringify({ s: 'volume', k: '1', i: 'news-sim-1-0' })).toString('base64url');
    expect((await t.api.get('/api/news').query({ cursor: otherList })).status).toBe(400);
    const badRpc = await rpcCall(t, 'list_news', { cursor: 'nope' });
    expect(badRpc.error.data.code).toBe('VALIDATION_ERROR');
  });
});
