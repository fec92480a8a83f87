import { countsTowardRecord } from '../../../src/domain/track-record/record-rule';
import { buyRowPart } from '../../../src/domain/track-record/track-listener';
import { TradeHooks, type BuyRowPart, type TradeEvent } from '../../../src/domain/trading/trade-hooks';

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

  test("the track record's part of a buy statement declines a buy in one's own market", () => {
    const part = buyRowPart();
    expect(part.applies?.(event({ ownMarket: true }))).toBe(false);
    expect(part.applies?.(event())).toBe(true);
  });

  test('a buy carries the listeners’ parts only when every part takes it; with none registered it carries none', () => {
    const hooks = new TradeHooks();
    expect(hooks.carriesParts(event())).toBe(false);
    const part = (applies?: (e: TradeEvent) => boolean): BuyRowPart => ({
      set: () => '',
      returning: [],
      count: 0,
      params: () => [],
      after: async () => {},
      ...(applies ? { applies } : {}),
    });
    hooks.on(async () => {}, part());
    expect(hooks.carriesParts(event({ ownMarket: true }))).toBe(true); // a part without `applies` takes every buy
    hooks.on(
      async () => {},
      part((e) => !e.ownMarket),
    );
    expect(hooks.carriesParts(event())).toBe(true);
    expect(hooks.carriesParts(event({ ownMarket: true }))).toBe(false);
  });
});

describe('a community market too thin for the record', () => {
  test.each(['BUY', 'SELL', 'SETTLE'] as const)('a %s in a thin community market does not count, and its buy carries no part', (side) => {
    expect(countsTowardRecord(event({ side, thinMarket: true }))).toBe(false);
    expect(countsTowardRecord(event({ side, thinMarket: false }))).toBe(true);
    expect(buyRowPart().applies?.(event({ thinMarket: true }))).toBe(false);
  });
});
