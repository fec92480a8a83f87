import { countsTowardRecord } from '../../../src/domain/track-record/record-rule';
import type { TradeEvent } from '../../../src/domain/trading/trade-hooks';

const event = (over: Partial<TradeEvent> = {}): TradeEvent => ({
  userId: '00000000-0000-4000-8000-000000000001',
  side: 'BUY',
  marketId: 'm',
  tokenId: 't',
  quantityMicro: 1_000_000n,
  cashMicro: 500_000n,
  realizedPnlMicro: 0n,
  at: new Date('2031-04-09T12:00:00Z'),
  ...over,
});

describe('what counts toward the track record', () => {
  test.each(['BUY', 'SELL', 'SETTLE'] as const)("a %s in one's own community market does not count; any other does", (side) => {
    expect(countsTowardRecord(event({ side, ownMarket: true }))).toBe(false);
    expect(countsTowardRecord(event({ side, ownMarket: false }))).toBe(true);
    expect(countsTowardRecord(event({ side }))).toBe(true);
  });
});

describe('a community market too thin for the record', () => {
  test.each(['BUY', 'SELL', 'SETTLE'] as const)('a %s in a thin community market does not count', (side) => {
    expect(countsTowardRecord(event({ side, thinMarket: true }))).toBe(false);
    expect(countsTowardRecord(event({ side, thinMarket: false }))).toBe(true);
  });
});
