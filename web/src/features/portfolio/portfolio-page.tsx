import { $api } from '../../lib/api/client';
import { money, signedMoney } from '../../lib/format';
import { usePageTitle } from '../../components/page-title';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';

/** The person's money: cash, equity and PnL. */
export function PortfolioPage() {
  usePageTitle('Portfolio');
  const portfolio = $api.useQuery('get', '/api/positions');
  if (portfolio.isPending) return <Loading what="your portfolio" />;
  if (portfolio.isError) return <ErrorMessage error={portfolio.error} />;
  const t = portfolio.data.totals;
  return (
    <>
      <h1>Portfolio</h1>
      <dl className="totals">
        <dt>Cash</dt>
        <dd>{money(t.cash)}</dd>
        <dt>Equity</dt>
        <dd>{money(t.equity)}</dd>
        <dt>Realized PnL</dt>
        <dd>{signedMoney(t.realizedPnl)}</dd>
        <dt>Unrealized PnL</dt>
        <dd>{signedMoney(t.unrealizedPnl)}</dd>
      </dl>
    </>
  );
}
