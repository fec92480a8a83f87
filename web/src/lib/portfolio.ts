import { useQueryClient } from '@tanstack/react-query';
import { $api } from './api/client';
import { ACCOUNT_QUERY_KEY } from './account';

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
      client.invalidateQueries({ queryKey: ACCOUNT_QUERY_KEY }),
    ]);
  };
}
