import { FeedError } from '../../../src/market-data/feed';
import { CATEGORIES } from '../../../src/market-data/simulated/questions';
import { SimulatedFeed } from '../../../src/market-data/simulated/simulated-feed';
import { testSeal } from '../../support/sealed-venue';

const DAY = 86_400_000;
const START = Date.UTC(2025, 0, 1);
const at = (t: number) => ({ now: () => new Date(t) });
const seed = 52_500;
const venue = (category: string | null, t = START) => new SimulatedFeed({ seed, speed: 1, information: true, seal: testSeal(), category }, at(t));

// A replay suite's episode lists one catalogue category (issue 52 item 5): the whole venue's markets, narrowed.
describe('a simulated venue of one category', () => {
  test('when it lists its markets, then they are exactly the whole venue’s markets of that category, with the same prices', async () => {
    const whole = (await venue(null).listMarkets()).markets;
    for (const category of ['Crypto', 'Weather', 'Sports']) {
      const own = (await venue(category).listMarkets()).markets;
      expect(own.length).toBeGreaterThan(5);
      expect(own).toEqual(whole.filter((m) => m.category === category));
    }
  });

  test('when another category’s market is looked up, quoted, charted or its news read, then the venue knows nothing of it', async () => {
    const whole = (await venue(null).listMarkets()).markets;
    const other = whole.find((m) => m.category !== 'Crypto')!;
    const own = whole.find((m) => m.category === 'Crypto')!;
    const crypto = venue('Crypto');
    expect(await crypto.market(other.id)).toBeNull();
    expect(await crypto.market(other.slug)).toBeNull();
    expect(await crypto.market(own.id)).toEqual(own);
    await expect(crypto.quote(other.tokens[0]!.tokenId)).rejects.toBeInstanceOf(FeedError);
    await expect(
      crypto.history(other.tokens[0]!.tokenId, { interval: '1d', fromS: START / 1000 - 86_400, toS: START / 1000, stepS: 3600 }),
    ).rejects.toBeInstanceOf(FeedError);
    expect((await crypto.quote(own.tokens[0]!.tokenId)).tokenId).toBe(own.tokens[0]!.tokenId);
    expect(await crypto.news({ limit: 10, marketId: other.id })).toEqual([]);
  });

  test('when news and the next news or resolution are asked, then only the category’s markets count; the whole venue’s come sooner or at once', async () => {
    const later = START + 20 * DAY;
    const crypto = venue('Crypto', later);
    const whole = venue(null, later);
    const ids = new Set((await crypto.listMarkets()).markets.map((m) => m.id));
    const news = await crypto.news({ limit: 50 });
    expect(news.length).toBe(50);
    const categoryOf = new Map<string, string>();
    for (const n of news) {
      const m = await whole.market(n.marketId);
      categoryOf.set(n.marketId, m!.category!);
    }
    expect(new Set(categoryOf.values())).toEqual(new Set(['Crypto']));
    // Independently: the whole venue's news, filtered by category, newest first, is what the category's venue says.
    const all = await whole.news({ limit: 1500 });
    const expected: typeof all = [];
    for (const n of all) if ((await whole.market(n.marketId))?.category === 'Crypto') expected.push(n);
    expect(news).toEqual(expected.slice(0, 50));
    const nextOwn = crypto.nextNewsAt(START, later)!;
    const nextAll = whole.nextNewsAt(START, later)!;
    expect(nextOwn).toBeGreaterThanOrEqual(nextAll);
    expect(crypto.nextResolutionAt(START, later)!).toBeGreaterThanOrEqual(whole.nextResolutionAt(START, later)!);
    expect(ids.size).toBeGreaterThan(0);
  });

  test('when a category the catalogue lacks is given, then the venue refuses to be built; every catalogue category builds', () => {
    expect(() => venue('Astrology')).toThrow(/no category Astrology/);
    for (const c of CATEGORIES) expect(venue(c).category).toBe(c);
  });
});
