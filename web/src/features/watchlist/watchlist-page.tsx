import { Link } from 'wouter';
import { useMutation } from '@tanstack/react-query';
import { api } from '../../lib/api/client';
import { useAccount } from '../../lib/account';
import { cents } from '../../lib/format';
import { marketHref, signInHref, PATHS } from '../../lib/paths';
import { useRefreshWatchlist, useWatchlist, type WatchedMarket } from '../../lib/watchlist';
import { usePageTitle } from '../../components/page-title';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';
import '../../components/discovery.css';

function alertText(m: WatchedMarket): string {
  const a = m.alert;
  const parts = [
    a.above !== null ? `≥ ${cents(a.above)}${a.aboveFiredAt ? ' (fired)' : ''}` : null,
    a.below !== null ? `≤ ${cents(a.below)}${a.belowFiredAt ? ' (fired)' : ''}` : null,
  ].filter(Boolean);
  return parts.length ? `Alert ${parts.join(', ')}` : 'No alert';
}

function Entry({ m }: { m: WatchedMarket }) {
  const refresh = useRefreshWatchlist();
  const remove = useMutation({
    mutationFn: () => api.DELETE('/api/watchlist/{marketId}', { params: { path: { marketId: m.marketId } } }),
    onSettled: refresh,
  });
  return (
    <li className="market-card">
      <Link href={marketHref(m.slug)} className="market-link">
        {m.question}
      </Link>
      <div className="market-meta">
        <span className="price yes">YES {cents(m.yesPrice)}</span>
        <span>{alertText(m)}</span>
        {m.status !== 'active' ? <span>{m.status}</span> : null}
        <button type="button" className="secondary" disabled={remove.isPending} onClick={() => remove.mutate()} aria-label={`Stop watching: ${m.question}`}>
          Remove
        </button>
      </div>
      {remove.isError ? <ErrorMessage error={remove.error} /> : null}
    </li>
  );
}

/** The markets the person watches, with their prices and alerts (list_watchlist); star markets on their pages. */
export function WatchlistPage() {
  usePageTitle('Watchlist');
  const account = useAccount();
  const watchlist = useWatchlist(Boolean(account.data));
  if (account.isPending) return <Loading what="your account" />;
  if (!account.data)
    return (
      <>
        <h1>Watchlist</h1>
        <p>
          <Link href={signInHref(PATHS.watchlist)}>Sign in</Link> to watch markets and set price alerts.
        </p>
      </>
    );
  return (
    <>
      <h1>Watchlist</h1>
      <p>Markets you watch. Set a price alert on a market&apos;s page: you get a notification when YES reaches it.</p>
      {watchlist.isPending ? <Loading what="your watchlist" /> : null}
      {watchlist.isError ? <ErrorMessage error={watchlist.error} /> : null}
      {watchlist.data && watchlist.data.markets.length === 0 ? (
        <p>
          Nothing watched yet: open a market from the <Link href={PATHS.home}>markets</Link> and press “Watch this market”.
        </p>
      ) : null}
      {watchlist.data && watchlist.data.markets.length > 0 ? (
        <ul className="market-list" aria-label="Watched markets">
          {watchlist.data.markets.map((m) => (
            <Entry key={m.marketId} m={m} />
          ))}
        </ul>
      ) : null}
    </>
  );
}
