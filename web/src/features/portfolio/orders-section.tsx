import { Link } from 'wouter';
import { $api } from '../../lib/api/client';
import { isOpen, useOrders, useRefreshAfterOrder, type Order } from '../../lib/orders';
import { cents, dateTime, money, shares } from '../../lib/format';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';

const STATE = {
  open: 'Open',
  partially_filled: 'Partly filled',
  filled: 'Filled',
  cancelled: 'Cancelled',
  expired: 'Expired',
  rejected: 'Rejected',
} as const;

const sizeOf = (o: Order) => (o.side === 'BUY' ? money(o.size) : `${shares(o.size)} shares`);

/** One resting order with its cancel button (cancel_order); the reservation it holds is released on cancel. */
function OpenOrder({ order }: { order: Order }) {
  const refresh = useRefreshAfterOrder();
  const cancel = $api.useMutation('post', '/api/orders/{id}/cancel', { onSuccess: () => refresh() });
  const label = `${order.side === 'BUY' ? 'Buy' : 'Sell'} ${order.outcome} ${sizeOf(order)} at ${cents(order.limitPrice)}`;
  return (
    <li className="card">
      <p>
        <strong>{label}</strong> · {STATE[order.state]} · {order.timeInForce}
        {order.expiresAt ? ` until ${dateTime(order.expiresAt)}` : ''}
      </p>
      <p className="muted">
        Filled {order.side === 'BUY' ? money(order.filledSize) : shares(order.filledSize)} · reserved{' '}
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

/** The portfolio's orders: the resting ones (with cancel) and the history of the ones that ended, newest first. */
export function OrdersSection() {
  const orders = useOrders();
  if (orders.isPending) return <Loading what="your orders" />;
  if (orders.isError) return <ErrorMessage error={orders.error} />;
  const open = orders.data.orders.filter(isOpen);
  const done = orders.data.orders.filter((o) => !isOpen(o));
  return (
    <>
      <section aria-labelledby="orders-open-heading">
        <h2 id="orders-open-heading">Open orders</h2>
        {open.length === 0 ? (
          <p>
            No open orders. Place a limit order from a <Link href="/">market&apos;s page</Link>.
          </p>
        ) : (
          <ul className="position-list">
            {open.map((o) => (
              <OpenOrder key={o.id} order={o} />
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="orders-history-heading">
        <h2 id="orders-history-heading">Order history</h2>
        {done.length === 0 ? (
          <p>No finished orders yet.</p>
        ) : (
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">Your finished orders, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Placed</th>
                  <th scope="col">Order</th>
                  <th scope="col">State</th>
                  <th scope="col" className="num">
                    Filled shares
                  </th>
                  <th scope="col" className="num">
                    Average price
                  </th>
                  <th scope="col" className="num">
                    Amount
                  </th>
                </tr>
              </thead>
              <tbody>
                {done.map((o) => (
                  <tr key={o.id}>
                    <td>{dateTime(o.createdAt)}</td>
                    <td>
                      {o.side === 'BUY' ? 'Buy' : 'Sell'} {o.outcome} {sizeOf(o)} at {cents(o.limitPrice)} ({o.timeInForce})
                    </td>
                    <td>
                      {STATE[o.state]}
                      {o.reason ? ` — ${o.reason}` : ''}
                    </td>
                    <td className="num">{shares(o.filledShares)}</td>
                    <td className="num">{cents(o.avgFillPrice)}</td>
                    <td className="num">{money(o.filledCash)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
