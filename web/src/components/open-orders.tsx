import { Link } from 'wouter';
import { $api } from '../lib/api/client';
import { useRefreshAfterOrder, type Order } from '../lib/orders';
import { usePortfolio } from '../lib/portfolio';
import { marketHref } from '../lib/paths';
import { cents, dateTime, money, shares } from '../lib/format';
import { ErrorMessage } from './error-message';

export const ORDER_STATE = {
  open: 'Open',
  partially_filled: 'Partly filled',
  filled: 'Filled',
  cancelled: 'Cancelled',
  expired: 'Expired',
  rejected: 'Rejected',
} as const;

/** What an order asks for, in its unit: "Buy YES $10.00 at 40.0¢", "Buy YES 5 shares at 40.0¢" or "Sell NO 5 shares at 60.0¢". */
export const orderSummary = (o: Order) =>
  `${o.side === 'BUY' ? 'Buy' : 'Sell'} ${o.outcome} ${o.amount !== null ? money(o.amount) : `${shares(o.shares ?? 0)} shares`} at ${cents(o.limitPrice)}`;

/**
 * The market an order is on, as a link. An order names only its market id: the question comes from the person's positions when
 * they hold the market (read anyway by the pages that list orders), else from get_market_odds, once per market.
 */
export function OrderMarket({ marketId }: { marketId: string }) {
  const portfolio = usePortfolio();
  const held = portfolio.data?.positions.find((p) => p.marketId === marketId);
  const market = $api.useQuery(
    'get',
    '/api/markets/{idOrSlug}',
    { params: { path: { idOrSlug: marketId } } },
    { enabled: portfolio.isSuccess && !held, staleTime: 10 * 60_000 },
  );
  const named = held ? { slug: held.marketSlug, question: held.question } : market.data;
  if (!named) return <span className="muted">{market.isError ? 'a market no longer listed' : 'loading its market…'}</span>;
  return <Link href={marketHref(named.slug)}>{named.question}</Link>;
}

/** One resting order with its cancel button (cancel_order); the reservation it holds is released on cancel. */
function OpenOrder({ order, showMarket }: { order: Order; showMarket: boolean }) {
  const refresh = useRefreshAfterOrder();
  const cancel = $api.useMutation('post', '/api/orders/{id}/cancel', { onSuccess: () => refresh() });
  const label = orderSummary(order);
  return (
    <li className="card">
      {showMarket ? (
        <p>
          <OrderMarket marketId={order.marketId} />
        </p>
      ) : null}
      <p>
        <strong>{label}</strong> · {ORDER_STATE[order.state]} · {order.timeInForce}
        {order.expiresAt ? ` until ${dateTime(order.expiresAt)}` : ''}
      </p>
      <p className="muted">
        Filled {order.side === 'BUY' ? money(order.filledCash) : shares(order.filledShares)} · reserved{' '}
        {order.side === 'BUY' ? money(order.reservedCash) : `${shares(order.reservedShares)} shares`}
      </p>
      {cancel.isError ? <ErrorMessage error={cancel.error} /> : null}
      <button
        type="button"
        className="secondary"
        aria-label={`Cancel order: ${label}`}
        disabled={cancel.isPending}
        onClick={() => cancel.mutate({ params: { path: { id: order.id } } })}
      >
        {cancel.isPending ? 'Cancelling…' : 'Cancel'}
      </button>
    </li>
  );
}

/** Resting orders, each with cancel; on the portfolio each names its market, on a market's page the market is the page's. */
export function OpenOrderList({ orders, showMarket }: { orders: Order[]; showMarket: boolean }) {
  return (
    <ul className="position-list">
      {orders.map((o) => (
        <OpenOrder key={o.id} order={o} showMarket={showMarket} />
      ))}
    </ul>
  );
}
