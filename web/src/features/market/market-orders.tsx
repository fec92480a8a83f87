import { isOpen, useOrders } from '../../lib/orders';
import { ErrorMessage } from '../../components/error-message';
import { OpenOrderList } from '../../components/open-orders';

/** The person's resting orders on this market, each with cancel (the same list the portfolio shows for every market). */
export function MarketOrders({ marketId }: { marketId: string }) {
  const orders = useOrders();
  if (orders.isError) return <ErrorMessage error={orders.error} />;
  const open = orders.data?.orders.filter((o) => o.marketId === marketId && isOpen(o)) ?? [];
  return (
    <section className="card" aria-labelledby="market-orders-heading">
      <h2 id="market-orders-heading">Your open orders</h2>
      {orders.isSuccess && open.length === 0 ? <p>No open orders on this market.</p> : null}
      {open.length > 0 ? <OpenOrderList orders={open} showMarket={false} /> : null}
    </section>
  );
}
