import { Link } from 'wouter';
import { useState } from 'react';
import { $api } from '../../lib/api/client';
import { isOpen, useOrders, useRefreshAfterOrder } from '../../lib/orders';
import { cents, dateTime, money, shares } from '../../lib/format';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';
import { OpenOrderList, OrderMarket, ORDER_STATE, orderSummary } from '../../components/open-orders';

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
          <OpenOrderList orders={open} showMarket />
        )}
        {/* Mounted whatever the list holds, so its answer stays once the list is empty. */}
        <CancelAll count={open.length} />
      </section>
      <section aria-labelledby="orders-history-heading">
        <h2 id="orders-history-heading">Order history</h2>
        {done.length === 0 ? (
          <p>No finished orders yet.</p>
        ) : (
          <div className="table-wrap">
            <table className="cards">
              <caption className="visually-hidden">Your finished orders, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Placed</th>
                  <th scope="col">Market</th>
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
                    <td data-label="Placed">{dateTime(o.createdAt)}</td>
                    <td data-label="Market">
                      <OrderMarket marketId={o.marketId} />
                    </td>
                    <td data-label="Order">
                      {orderSummary(o)} ({o.timeInForce})
                    </td>
                    <td data-label="State">
                      {ORDER_STATE[o.state]}
                      {o.reason ? ` — ${o.reason}` : ''}
                    </td>
                    <td className="num" data-label="Filled shares">
                      {shares(o.filledShares)}
                    </td>
                    <td className="num" data-label="Average price">
                      {cents(o.avgPrice)}
                    </td>
                    <td className="num" data-label="Amount">
                      {money(o.filledCash)}
                    </td>
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

/** Cancels every open order at once (cancel_all_orders), after a confirming second press; every reservation is released. */
function CancelAll({ count }: { count: number }) {
  const refresh = useRefreshAfterOrder();
  const [confirming, setConfirming] = useState(false);
  const cancelAll = $api.useMutation('post', '/api/orders/cancel-all', { onSuccess: () => refresh() });
  const done = cancelAll.data;
  if (count === 0 && !done && !cancelAll.isError) return null;
  return (
    <div className="cancel-all">
      {count === 0 ? null : confirming ? (
        <>
          <button
            type="button"
            onClick={() => {
              setConfirming(false);
              cancelAll.mutate({ body: {} });
            }}
            disabled={cancelAll.isPending}
          >
            Yes, cancel all {count}
          </button>{' '}
          <button type="button" className="secondary" onClick={() => setConfirming(false)}>
            Keep them
          </button>
        </>
      ) : (
        <button type="button" className="secondary" onClick={() => setConfirming(true)} disabled={cancelAll.isPending}>
          {cancelAll.isPending ? 'Cancelling…' : 'Cancel all open orders'}
        </button>
      )}
      <span role="status">{done ? `Cancelled ${done.count} order${done.count === 1 ? '' : 's'}; their reserved cash and shares are free again.` : ''}</span>
      {cancelAll.isError ? <ErrorMessage error={cancelAll.error} /> : null}
    </div>
  );
}
