import { useState } from 'react';
import { usePortfolio } from '../lib/portfolio';
import { cents, money, shares, signedMoney } from '../lib/format';
import { ErrorMessage } from './error-message';
import { SellPosition } from './sell-position';

/**
 * The person's open positions in one market (mirrored or community), each with sell (part or all, quoted first);
 * shown beside the market's trade ticket.
 */
export function MarketPosition({ marketId, onSold }: { marketId: string; onSold?: () => void }) {
  const portfolio = usePortfolio();
  const [closedNews, setClosedNews] = useState('');
  if (portfolio.isError) return <ErrorMessage error={portfolio.error} />;
  const open = portfolio.data?.positions.filter((p) => p.marketId === marketId && !p.isClosed) ?? [];
  return (
    <section className="card" aria-labelledby="position-heading">
      <h2 id="position-heading">Your position</h2>
      {closedNews ? (
        <p role="status" className="fill">
          {closedNews}
        </p>
      ) : null}
      {portfolio.isSuccess && open.length === 0 ? <p>You hold no shares of this market.</p> : null}
      {open.map((p) => (
        <div key={p.id} className="position">
          <p>
            <strong>
              {shares(p.quantity)} {p.outcomeLabel ?? p.outcome}
            </strong>{' '}
            shares, bought at {cents(p.avgPrice)} on average; now {cents(p.currentPrice)}, worth {money(p.marketValue)} ({signedMoney(p.unrealizedPnl)}).
          </p>
          <SellPosition position={p} onClosed={setClosedNews} onSold={onSold} />
        </div>
      ))}
    </section>
  );
}
