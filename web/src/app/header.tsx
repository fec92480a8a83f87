import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { api } from '../lib/api/client';
import { ACCOUNT_QUERY_KEY, useAccount } from '../lib/account';
import { useAccountEvents } from '../lib/account-events';
import { money } from '../lib/format';
import { PATHS, signInHref, traderHref } from '../lib/paths';
import { SITE } from '../components/page-title';
import { ErrorMessage } from '../components/error-message';

/** Site header: where to go, and who is signed in (name, balance, level, unread notifications). */
export function Header() {
  const account = useAccount();
  // While signed in, the account's events keep the balance shown here (and the pages' positions and orders) current.
  useAccountEvents(account.data?.id ?? null);
  const [location, navigate] = useLocation();
  const client = useQueryClient();
  const signOut = useMutation({
    mutationFn: () => api.POST('/api/auth/logout', { body: {} }),
    onSettled: () => {
      client.setQueryData(ACCOUNT_QUERY_KEY, null);
      client.removeQueries({ predicate: (q) => q.queryKey[0] !== ACCOUNT_QUERY_KEY[0] });
      navigate(PATHS.home);
    },
  });
  const me = account.data;
  return (
    <header className="site-header">
      <nav aria-label="Main" className="site-nav">
        <Link href={PATHS.home} className="brand">
          {SITE}
        </Link>
        <Link href={PATHS.home}>Markets</Link>
        <Link href={PATHS.portfolio}>Portfolio</Link>
        <Link href={PATHS.watchlist}>Watchlist</Link>
        <Link href={PATHS.leaderboard}>Leaderboard</Link>
        <Link href={PATHS.benchmark}>Benchmark</Link>
        <Link href={PATHS.replay}>Replay</Link>
        <Link href={PATHS.replaySuite}>Replay board</Link>
        <Link href={PATHS.challenge}>Challenge</Link>
        <Link href={PATHS.communityMarkets}>Community</Link>
        <Link href={PATHS.agents}>Agents</Link>
        <Link href={PATHS.notifications}>Notifications</Link>
        <Link href={PATHS.settings}>Settings</Link>
      </nav>
      <div className="account-bar">
        {me ? (
          <>
            <span aria-label="Signed in as">{me.displayName}</span>
            {/* Its own words, not the name: a name may read like any link of the page ("Challenger"). */}
            <Link href={traderHref(me.id)}>My profile</Link>
            <span aria-label="Available cash" title="Cash you can spend: your balance less what open orders reserve">
              {money(me.available)}
            </span>
            <span aria-label="Level" title={me.levelTitle}>
              Level {me.level}
            </span>
            <span aria-label="Unread notifications" className="badge" title="Unread notifications">
              {me.unreadNotifications}
            </span>
            <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
              Sign out
            </button>
          </>
        ) : account.isPending ? null : (
          <>
            <Link href={signInHref(location === PATHS.signUp ? undefined : location)}>Sign in</Link>
            <Link href={PATHS.signUp} className="button-link">
              Sign up
            </Link>
          </>
        )}
      </div>
      {account.isError ? <ErrorMessage error={account.error} /> : null}
    </header>
  );
}
