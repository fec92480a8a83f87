import { lazy, Suspense, useState } from 'react';
import { Link } from 'wouter';
import { isCommunityPosition, marketHrefFromPositions, positionHref, usePortfolio } from '../../lib/portfolio';
import { useAccount } from '../../lib/account';
import { cents, date, money, percent, shares, signedMoney, signedPercent } from '../../lib/format';
import { allocation, markedAt, positionReturn } from '../../lib/position-figures';
import { useLivePrices } from '../../lib/live-prices';
import { usePageTitle } from '../../components/page-title';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';
import { ErrorBoundary } from '../../components/error-boundary';
import { SellPosition } from '../../components/sell-position';
import { TradeHistory } from './trade-history';
import { OrdersSection } from './orders-section';

const EquityChart = lazy(() => import('./equity-chart'));

/** The person's money: cash, equity and PnL (marked at live prices); open positions (each with sell), closed ones, and every trade. */
export function PortfolioPage() {
  usePageTitle('Portfolio');
  const portfolio = usePortfolio();
  const account = useAccount();
  const [closedNews, setClosedNews] = useState('');
  // Open positions of mirrored markets are marked at the price stream's prices as they come (community markets are not on it).
  const streamed = (portfolio.data?.positions ?? []).filter((p) => !p.isClosed && !isCommunityPosition(p));
  const live = useLivePrices([...new Set(streamed.map((p) => p.marketId))]);
  if (portfolio.isPending) return <Loading what="your portfolio" />;
  if (portfolio.isError) return <ErrorMessage error={portfolio.error} />;
  const { totals, positions } = markedAt(portfolio.data.positions, portfolio.data.totals, (tokenId) => live.liveQuote(tokenId)?.price);
  const open = positions.filter((p) => !p.isClosed);
  const closed = positions.filter((p) => p.isClosed);
  return (
    <>
      <h1>Portfolio</h1>
      <dl className="totals">
        <div>
          <dt>Cash</dt>
          <dd>{money(totals.cash)}</dd>
        </div>
        <div>
          <dt>Reserved by orders</dt>
          <dd>{money(account.data?.reserved)}</dd>
        </div>
        <div>
          <dt>Available</dt>
          <dd>{money(account.data?.available)}</dd>
        </div>
        {totals.poolFunding > 0 ? (
          <div>
            {/* The funding of one's own community markets is an asset until they settle, and Equity counts it (issue 53 item 4). */}
            <dt>Your markets’ funding</dt>
            <dd title="What the funding of the community markets you created is worth now: it returns to you when they settle">{money(totals.poolFunding)}</dd>
          </div>
        ) : null}
        <div>
          <dt>Equity</dt>
          <dd>{money(totals.equity)}</dd>
        </div>
        <div>
          <dt>Realized PnL</dt>
          <dd>{signedMoney(totals.realizedPnl)}</dd>
        </div>
        <div>
          <dt>Unrealized PnL</dt>
          <dd>{signedMoney(totals.unrealizedPnl)}</dd>
        </div>
      </dl>

      <ErrorBoundary>
        <Suspense fallback={<Loading what="the equity chart" />}>
          <EquityChart />
        </Suspense>
      </ErrorBoundary>

      <section aria-labelledby="open-heading">
        <h2 id="open-heading">Open positions</h2>
        {closedNews ? (
          <p role="status" className="fill">
            {closedNews}
          </p>
        ) : null}
        {open.length === 0 ? (
          <p>
            No open positions. Find a market on the <Link href="/">markets page</Link>.
          </p>
        ) : (
          <ul className="position-list">
            {open.map((p) => (
              <li key={p.id} className="card">
                <Link href={positionHref(p)}>{p.question}</Link>
                <dl className="position-facts">
                  <div>
                    <dt>Holding</dt>
                    <dd>
                      {shares(p.quantity)} {p.outcomeLabel ?? p.outcome}
                    </dd>
                  </div>
                  <div>
                    <dt>Average price</dt>
                    <dd>{cents(p.avgPrice)}</dd>
                  </div>
                  <div>
                    <dt>Mark price</dt>
                    <dd>{cents(p.currentPrice)}</dd>
                  </div>
                  <div>
                    <dt>Value</dt>
                    <dd>{money(p.marketValue)}</dd>
                  </div>
                  <div>
                    <dt>Unrealized PnL</dt>
                    <dd>{signedMoney(p.unrealizedPnl)}</dd>
                  </div>
                  <div>
                    <dt>Return</dt>
                    <dd>{signedPercent(positionReturn(p))}</dd>
                  </div>
                  <div>
                    <dt>Allocation</dt>
                    <dd title="Share of your equity (cash and open positions)">{percent(allocation(p, totals.equity))}</dd>
                  </div>
                </dl>
                <SellPosition position={p} onClosed={setClosedNews} />
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="closed-heading">
        <h2 id="closed-heading">Closed positions</h2>
        {closed.length === 0 ? (
          <p>None yet.</p>
        ) : (
          <div className="table-wrap">
            <table className="cards">
              <thead>
                <tr>
                  <th scope="col">Market</th>
                  <th scope="col">Side</th>
                  <th scope="col" className="num">
                    Realized PnL
                  </th>
                  <th scope="col">Closed</th>
                </tr>
              </thead>
              <tbody>
                {closed.map((p) => (
                  <tr key={p.id}>
                    <td data-label="Market">
                      <Link href={positionHref(p)}>{p.question}</Link>
                    </td>
                    <td data-label="Side">{p.outcomeLabel ?? p.outcome}</td>
                    <td className="num" data-label="Realized PnL">
                      {signedMoney(p.realizedPnl)}
                    </td>
                    <td data-label="Closed">{date(p.closedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <OrdersSection />
      <TradeHistory hrefOf={marketHrefFromPositions(positions)} />
    </>
  );
}
