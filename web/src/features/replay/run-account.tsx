import type { RunClient } from '../../lib/api/run-client';
import { money, sharesOf, signedMoney } from '../../lib/format';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';

/** The run's own account (get_portfolio with the run's key): cash, worth, and what it holds. */
export function RunAccount({ rc }: { rc: RunClient }) {
  const portfolio = rc.$api.useQuery('get', '/api/positions');
  return (
    <section className="card" aria-labelledby="replay-account">
      <h2 id="replay-account">Your replay money</h2>
      {portfolio.isPending ? (
        <Loading what="your replay money" />
      ) : portfolio.isError ? (
        <ErrorMessage error={portfolio.error} />
      ) : (
        <>
          <dl className="totals">
            <div>
              <dt>Cash</dt>
              <dd>{money(portfolio.data.totals.cash)}</dd>
            </div>
            <div>
              <dt>Worth in all</dt>
              <dd>{money(portfolio.data.totals.equity)}</dd>
            </div>
            <div>
              <dt>Profit or loss</dt>
              <dd>{signedMoney(portfolio.data.totals.realizedPnl + portfolio.data.totals.unrealizedPnl)}</dd>
            </div>
          </dl>
          {portfolio.data.positions.length === 0 ? (
            <p className="muted">You hold nothing yet.</p>
          ) : (
            <ul className="position-list">
              {portfolio.data.positions.map((p) => (
                <li key={p.id}>
                  {p.question}:{' '}
                  {p.isClosed ? `${p.outcome}, settled, ${signedMoney(p.realizedPnl)}` : `${sharesOf(p.quantity, p.outcome)}, worth ${money(p.marketValue)}`}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
