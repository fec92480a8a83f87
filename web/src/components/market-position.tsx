import { useState } from 'react';
import { $api } from '../lib/api/client';
import { usePortfolio } from '../lib/portfolio';
import { cents, dateTime, money, percent, shares, signedMoney } from '../lib/format';
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
      {/* Read only beside a holding: a person browsing markets they hold nothing of makes no extra call per page (the 30-a-minute budget). */}
      {open.length > 0 ? <StatedForecast marketId={marketId} /> : null}
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

/** The person's current stated forecast on this market (list_forecasts), if any: what they said beside what they hold. */
function StatedForecast({ marketId }: { marketId: string }) {
  const forecasts = $api.useQuery('get', '/api/forecasts', { params: { query: { marketId, limit: 1 } } }, { staleTime: 30_000 });
  const f = forecasts.data?.forecasts[0];
  // A community market's forecast is one probability per outcome; the line below speaks of a YES/NO market's.
  if (!f || f.probability === null) return null;
  return (
    <p>
      Your forecast: <strong>{percent(f.probability)} chance of YES</strong>, stated {dateTime(f.createdAt)}
      {f.mids[0] !== null && f.mids[0] !== undefined ? ` when the market was at ${cents(f.mids[0])}` : ''}.
    </p>
  );
}
