/**
 * A position's return and allocation, from the numbers the positions API gives (or marked at a newer price by markedAt, by
 * the same rule): its cost basis is marketValue − unrealizedPnl, so the return agrees with the PnL shown beside it.
 */
export interface PositionNumbers {
  marketValue: number | null;
  unrealizedPnl: number | null;
}

/** What the shares held cost: marketValue − unrealizedPnl (the API defines unrealizedPnl as marketValue − cost basis). */
export function costBasis(p: PositionNumbers): number | null {
  if (p.marketValue === null || p.unrealizedPnl === null) return null;
  return p.marketValue - p.unrealizedPnl;
}

/** Unrealized return as a fraction of cost basis (0.25 = +25 %); null when closed or nothing was paid. */
export function positionReturn(p: PositionNumbers): number | null {
  const cost = costBasis(p);
  if (cost === null || p.unrealizedPnl === null || cost <= 0) return null;
  return p.unrealizedPnl / cost;
}

/** The position's share of equity (cash + every open position's value); null when closed or equity is not positive. */
export function allocation(p: PositionNumbers, equity: number): number | null {
  if (p.marketValue === null || !(equity > 0)) return null;
  return p.marketValue / equity;
}

/** An open position's numbers and the portfolio's totals as the positions API gives them. */
export interface MarkedPosition extends PositionNumbers {
  tokenId: string;
  quantity: number;
  currentPrice: number | null;
}
export interface PortfolioTotals {
  cash: number;
  marketValue: number;
  equity: number;
  unrealizedPnl: number;
}

/**
 * The positions marked at newer prices (price per token, e.g. from the price stream), by the API's own rule: marketValue =
 * quantity × price, unrealizedPnl = marketValue − cost basis; the totals move by each position's change in value. A
 * position without a newer price, or closed, keeps the API's numbers.
 */
export function markedAt<P extends MarkedPosition, T extends PortfolioTotals>(
  positions: readonly P[],
  totals: T,
  priceOf: (tokenId: string) => number | undefined,
): { positions: P[]; totals: T } {
  let moved = 0;
  const marked = positions.map((p) => {
    const price = priceOf(p.tokenId);
    const cost = costBasis(p);
    if (price === undefined || cost === null || p.marketValue === null || price === p.currentPrice) return p;
    const marketValue = p.quantity * price;
    moved += marketValue - p.marketValue;
    return { ...p, currentPrice: price, marketValue, unrealizedPnl: marketValue - cost };
  });
  if (moved === 0) return { positions: marked, totals };
  return {
    positions: marked,
    totals: { ...totals, marketValue: totals.marketValue + moved, equity: totals.equity + moved, unrealizedPnl: totals.unrealizedPnl + moved },
  };
}
