import { useState } from 'react';
import { $api } from '../lib/api/client';
import { cents, shares } from '../lib/format';
import { ErrorMessage } from './error-message';
import { Loading } from './loading';

/**
 * One token's order book (get_order_book), read only when the person opens it: closed it costs no call, so browsing
 * markets keeps within a person's budget of calls. A synthetic book (the simulated venue publishes no depth) says so.
 */
export function OrderBook({ tokenId, outcome }: { tokenId: string; outcome: string }) {
  const [opened, setOpened] = useState(false);
  return (
    <details className="order-book card" onToggle={(e) => setOpened(opened || e.currentTarget.open)}>
      <summary>{outcome} order book</summary>
      {opened ? <BookLevels tokenId={tokenId} outcome={outcome} /> : null}
    </details>
  );
}

function BookLevels({ tokenId, outcome }: { tokenId: string; outcome: string }) {
  const book = $api.useQuery('get', '/api/book', { params: { query: { tokenId } } }, { staleTime: 15_000 });
  if (book.isPending) return <Loading what="the order book" />;
  if (book.isError) return <ErrorMessage error={book.error} />;
  const b = book.data;
  const rows = Math.max(b.bids.length, b.asks.length);
  return (
    <>
      <table>
        <caption>
          {outcome}: best bid {cents(b.bid)}, best ask {cents(b.ask)}
        </caption>
        <thead>
          <tr>
            <th scope="col" className="num">
              Bid shares
            </th>
            <th scope="col" className="num">
              Bid
            </th>
            <th scope="col" className="num">
              Ask
            </th>
            <th scope="col" className="num">
              Ask shares
            </th>
          </tr>
        </thead>
        <tbody>
          {Array.from({ length: rows }, (_, i) => (
            <tr key={i}>
              <td className="num">{b.bids[i] ? shares(b.bids[i].shares) : ''}</td>
              <td className="num">{b.bids[i] ? cents(b.bids[i].price) : ''}</td>
              <td className="num">{b.asks[i] ? cents(b.asks[i].price) : ''}</td>
              <td className="num">{b.asks[i] ? shares(b.asks[i].shares) : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {b.synthetic ? <p className="muted">The simulated venue publishes no depth: these levels are made from its bid, ask and volume.</p> : null}
    </>
  );
}
