import { useQueryClient } from '@tanstack/react-query';
import { $api, type Ok } from './api/client';
import { ACCOUNT_QUERY_KEY } from './account';

export type Order = Ok<'/api/orders', 'get'>['orders'][number];

/** An order that still rests (and holds a reservation). */
export const isOpen = (o: Order) => o.state === 'open' || o.state === 'partially_filled';

/** The person's latest orders (list_orders, newest first), shared by the portfolio's open orders and history. */
export function useOrders(enabled = true) {
  return $api.useQuery('get', '/api/orders', { params: { query: { limit: 100 } } }, { enabled, staleTime: 5_000 });
}

/** After placing or cancelling: orders, positions, trades and the account's balance are read again. */
export function useRefreshAfterOrder(): () => Promise<void> {
  const client = useQueryClient();
  return async () => {
    await Promise.all([
      client.invalidateQueries({ queryKey: ['get', '/api/orders'] }),
      client.invalidateQueries({ queryKey: ['get', '/api/positions'] }),
      client.invalidateQueries({ queryKey: ['get', '/api/trades'] }),
      // A trade or an order may carry a stated forecast (its position and the record show it).
      client.invalidateQueries({ queryKey: ['get', '/api/forecasts'] }),
      client.invalidateQueries({ queryKey: ACCOUNT_QUERY_KEY }),
    ]);
  };
}
