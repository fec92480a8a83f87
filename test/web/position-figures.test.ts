import { allocation, costBasis, markedAt, positionReturn } from '../../web/src/lib/position-figures';
import { signedPercent } from '../../web/src/lib/format';

/**
 * Hand-computed fixture: $1,000 start; $100 of YES at 40¢ (250 shares), marked at 50¢; $30 of NO at 75¢
 * (40 shares), marked at 60¢. Cash 1000 − 100 − 30 = 870; values 125 and 24; equity 870 + 125 + 24 = 1019.
 * The API's numbers for them, as GET /api/positions reports them:
 */
const yes = { quantity: 250, avgPrice: 0.4, currentPrice: 0.5, marketValue: 125, unrealizedPnl: 25 };
const no = { quantity: 40, avgPrice: 0.75, currentPrice: 0.6, marketValue: 24, unrealizedPnl: -6 };
const closed = { quantity: 0, avgPrice: 0, currentPrice: null, marketValue: null, unrealizedPnl: null };
const cash = 870;
const equity = 1019;

describe("the portfolio's per-position return and allocation (web/src/lib/position-figures.ts)", () => {
  test('when positions are marked, then the return is PnL over cost and the allocation is value over equity, as worked by hand', () => {
    expect(costBasis(yes)).toBe(100);
    expect(costBasis(no)).toBe(30);
    // 25 / 100 and −6 / 30.
    expect(positionReturn(yes)).toBeCloseTo(0.25, 12);
    expect(positionReturn(no)).toBeCloseTo(-0.2, 12);
    // 125 / 1019 = 0.122669…, 24 / 1019 = 0.0235525…
    expect(allocation(yes, equity)).toBeCloseTo(0.122669, 6);
    expect(allocation(no, equity)).toBeCloseTo(0.0235525, 6);
    expect(signedPercent(positionReturn(yes))).toBe('+25.0%');
    expect(signedPercent(positionReturn(no))).toBe('−20.0%');
  });

  test('when computed independently from shares and prices, then the figures agree', () => {
    for (const p of [yes, no]) {
      // quantity × (mark − average) / (quantity × average) = mark / average − 1.
      expect(positionReturn(p)).toBeCloseTo(p.currentPrice / p.avgPrice - 1, 12);
      expect(allocation(p, equity)).toBeCloseTo((p.quantity * p.currentPrice) / (cash + yes.quantity * yes.currentPrice + no.quantity * no.currentPrice), 12);
    }
    // Cash and the open positions make up all of equity.
    expect(cash / equity + allocation(yes, equity)! + allocation(no, equity)!).toBeCloseTo(1, 12);
  });

  test('when a position is closed, cost nothing, or equity is not positive, then there is no figure (shown as —)', () => {
    expect(positionReturn(closed)).toBeNull();
    expect(allocation(closed, equity)).toBeNull();
    expect(positionReturn({ marketValue: 3, unrealizedPnl: 3 })).toBeNull();
    expect(allocation(yes, 0)).toBeNull();
    expect(signedPercent(null)).toBe('—');
    expect(signedPercent(-0.00004)).toBe('0.0%');
  });
});

describe('positions marked at streamed prices (markedAt)', () => {
  const positions = [
    { ...yes, tokenId: 'y' },
    { ...no, tokenId: 'n' },
    { ...closed, tokenId: 'c' },
  ];
  const totals = { cash, marketValue: 149, equity, realizedPnl: 0, unrealizedPnl: 19 };

  test('when the YES price moves to 58¢, then its value, PnL and the totals move as worked by hand, and the rest keep the API figures', () => {
    const out = markedAt(positions, totals, (id) => (id === 'y' ? 0.58 : undefined));
    // 250 × 0.58 = 145; cost 100, so PnL 45; value up 20 from 125: market value 169, equity 1039, unrealized 39.
    expect(out.positions[0]).toMatchObject({ currentPrice: 0.58, marketValue: 145, unrealizedPnl: 45 });
    expect(out.positions[1]).toBe(positions[1]);
    expect(out.positions[2]).toBe(positions[2]);
    expect(out.totals).toEqual({ cash, marketValue: 169, equity: 1039, realizedPnl: 0, unrealizedPnl: 39 });
    expect(positionReturn(out.positions[0]!)).toBeCloseTo(0.45, 12);
  });

  test('when every token has a new price, then the totals equal cash plus shares × price summed independently', () => {
    const prices: Record<string, number> = { y: 0.31, n: 0.77, c: 0.5 };
    const out = markedAt(positions, totals, (id) => prices[id]);
    const value = yes.quantity * prices.y! + no.quantity * prices.n!;
    const cost = yes.quantity * yes.avgPrice + no.quantity * no.avgPrice;
    expect(out.totals.marketValue).toBeCloseTo(value, 9);
    expect(out.totals.equity).toBeCloseTo(cash + value, 9);
    expect(out.totals.unrealizedPnl).toBeCloseTo(value - cost, 9);
    // A closed position has no mark, whatever price is given.
    expect(out.positions[2]!.marketValue).toBeNull();
  });

  test('when no price is newer, then the API figures are kept as they are', () => {
    const out = markedAt(positions, totals, () => undefined);
    expect(out.totals).toBe(totals);
    expect(out.positions).toEqual(positions);
  });
});
