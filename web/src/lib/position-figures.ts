/**
 * A position's return and allocation, from the numbers the positions API gives (never recomputed from
 * prices): its cost basis is marketValue − unrealizedPnl, so the return agrees with the PnL shown beside it.
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
