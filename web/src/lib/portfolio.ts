import { useQueryClient } from '@tanstack/react-query';
import { $api, type Ok } from './api/client';
import { ACCOUNT_QUERY_KEY } from './account';
import { heldMarketHref } from './paths';

export type Position = Ok<'/api/positions', 'get'>['positions'][number];

/** A community market's position names the outcome label it holds (get_portfolio's outcomeLabel); a mirrored one does not. */
export const isCommunityPosition = (p: Position) => p.outcomeLabel !== undefined;

/** A position's market page: the community market's page for a community position. */
export const positionHref = (p: Position) => heldMarketHref(p.marketSlug, isCommunityPosition(p));

/**
 * The page of a market the person traded, from their positions (every trade belongs to one): fills and orders name only the
 * market, and a community market's page is not /markets/….
 */
export function marketHrefFromPositions(positions: Position[] | undefined): (marketId: string, slug: string) => string {
  const community = new Set((positions ?? []).filter(isCommunityPosition).map((p) => p.marketId));
  return (marketId, slug) => heldMarketHref(slug, community.has(marketId));
}

/** The person's positions and totals (get_portfolio), shared by the market page and the portfolio. */
export function usePortfolio(enabled = true) {
  // Trades, sales and orders re-read it themselves (useRefreshAfterTrade); otherwise half a minute is fresh enough.
  return $api.useQuery('get', '/api/positions', {}, { enabled, staleTime: 30_000 });
}

/** After a trade or a sale: positions, balance, trade history and the header are read again. */
export function useRefreshAfterTrade(): () => Promise<void> {
  const client = useQueryClient();
  return async () => {
    await Promise.all([
      client.invalidateQueries({ queryKey: ['get', '/api/positions'] }),
      client.invalidateQueries({ queryKey: ['get', '/api/trades'] }),
      // A trade or an order may carry a stated forecast (its position and the record show it).
      client.invalidateQueries({ queryKey: ['get', '/api/forecasts'] }),
      client.invalidateQueries({ queryKey: ACCOUNT_QUERY_KEY }),
    ]);
  };
}
