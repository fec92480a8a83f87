import { loadMarket, storeMarket } from '../../../src/market-data/mirror-history/market-codec';
import type { FeedMarket } from '../../../src/market-data/feed';

const asOf = new Date('2026-11-20T10:00:00.000Z');
const market: FeedMarket = {
  id: '516710',
  slug: 'fed-cut',
  question: 'Will the Fed cut rates?',
  description: null,
  category: 'Economy',
  imageUrl: null,
  volume: 2483911.17,
  createdAt: new Date('2026-06-01T19:44:12.518Z'),
  endDate: new Date('2026-12-31T12:00:00.000Z'),
  status: 'active',
  winner: null,
  resolvedAt: null,
  tokens: [
    { tokenId: '1', outcome: 'YES', label: 'Yes', priceMicro: 535_000n, bidMicro: 530_000n, askMicro: 540_000n },
    { tokenId: '2', outcome: 'NO', label: 'No', priceMicro: 465_000n, bidMicro: 460_000n, askMicro: 470_000n },
  ],
  asOf,
  stats: { volume24h: 21873.01, openInterest: null, lastTradePriceMicro: 530_000n, tickSizeMicro: 1_000n, minOrderShares: 5 },
};

describe("the mirror history's market codec", () => {
  test('when a market with its trading figures is stored as JSON and loaded, then it comes back the same (micro amounts exact)', () => {
    const stored = JSON.parse(JSON.stringify(storeMarket(market)));
    expect(stored.stats).toEqual({ volume24h: 21873.01, openInterest: null, lastTradePrice: '530000', tickSize: '1000', minOrderShares: 5 });
    expect(loadMarket(stored, asOf)).toEqual(market);
  });

  test('when a record was made before the figures were kept, then it loads without them', () => {
    const { stats: _stats, ...older } = market;
    const stored = JSON.parse(JSON.stringify(storeMarket(older)));
    expect(stored).not.toHaveProperty('stats');
    expect(loadMarket(stored, asOf)).toEqual(older);
  });
});
