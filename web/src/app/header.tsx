import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { api } from '../lib/api/client';
import { ACCOUNT_QUERY_KEY, useAccount } from '../lib/account';
import { useAccountEvents } from '../lib/account-events';
import { money } from '../lib/format';
import { PATHS, pathMatches, signInHref, traderHref } from '../lib/paths';
import { chooseScheme, useScheme } from '../lib/theme';
import { SITE } from '../components/page-title';
import { ErrorMessage } from '../components/error-message';
import { HeaderMenu } from './header-menu';

/** The header's own links: where people go most, as on the venues' headers; each also current on its own sub-pages. */
const MAIN = [
  { href: PATHS.home, label: 'Markets', also: [PATHS.market] },
  { href: PATHS.communityMarkets, label: 'Community', also: [PATHS.communityMarket] },
  { href: PATHS.portfolio, label: 'Portfolio', also: [] },
  { href: PATHS.leaderboard, label: 'Leaderboard', also: [PATHS.trader] },
  { href: PATHS.benchmark, label: 'Benchmark', also: [PATHS.benchmarkMetrics] },
] as const;

/** Every other page, under More. */
const MORE = [
  { href: PATHS.watchlist, label: 'Watchlist' },
  { href: PATHS.replay, label: 'Replay' },
  { href: PATHS.replaySuite, label: 'Replay board' },
  { href: PATHS.challenge, label: 'Challenge' },
  { href: PATHS.agents, label: 'Agents' },
] as const;

const currentAttr = (on: boolean) => (on ? ('page' as const) : undefined);

/**
 * Site header, one row at desktop widths: the main pages and More, a market search, and for a signed-in person their
 * cash and an account menu (name, unread notifications; profile, settings, sign out inside). The page shown is marked
 * (aria-current). A phone shows its tab bar instead of the links (phone.css, tab-bar.tsx).
 */
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
  const isCurrent = (href: string, also: readonly string[] = []) => location === href || also.some((p) => pathMatches(p, location));
  // The More page the location is under; the longest match wins (/replay/suite is Replay board, not Replay).
  const moreCurrent = MORE.filter((m) => location === m.href || location.startsWith(`${m.href}/`)).sort((a, b) => b.href.length - a.href.length)[0]?.href;
  const mine = me ? traderHref(me.id) : null;
  return (
    <header className="site-header">
      <nav aria-label="Main" className="site-nav">
        <Link href={PATHS.home} className="brand">
          {SITE}
        </Link>
        {MAIN.map((l) => (
          <Link key={l.href} href={l.href} aria-current={currentAttr(isCurrent(l.href, l.also) && location !== mine)}>
            {l.label}
          </Link>
        ))}
        <HeaderMenu className="menu-button" label="More" button="More" current={moreCurrent !== undefined}>
          {MORE.map((m) => (
            <li key={m.href}>
              <Link href={m.href} aria-current={currentAttr(m.href === moreCurrent)}>
                {m.label}
              </Link>
            </li>
          ))}
        </HeaderMenu>
      </nav>
      <div className="account-bar">
        <HeaderSearch />
        <ThemeToggle />
        {me ? (
          <>
            <span className="header-cash" aria-label="Available cash" title="Cash you can spend: your balance less what open orders reserve">
              {money(me.available)}
            </span>
            <HeaderMenu
              className="account-button"
              label="Account menu"
              current={location === mine || location === PATHS.settings || location === PATHS.notifications}
              button={
                <>
                  {/* Its own words, not the name: a name may read like any link of the page ("Challenger"). */}
                  <span aria-label="Signed in as">{me.displayName}</span>
                  <span aria-label="Unread notifications" className="badge" title="Unread notifications">
                    {me.unreadNotifications}
                  </span>
                </>
              }
            >
              <li className="menu-note" aria-label="Level" title={me.levelTitle}>
                Level {me.level}
              </li>
              <li>
                <Link href={mine!} aria-current={currentAttr(location === mine)}>
                  My profile
                </Link>
              </li>
              <li>
                <Link href={PATHS.notifications} aria-current={currentAttr(location === PATHS.notifications)}>
                  Notifications ({me.unreadNotifications} unread)
                </Link>
              </li>
              <li>
                <Link href={PATHS.settings} aria-current={currentAttr(location === PATHS.settings)}>
                  Settings
                </Link>
              </li>
              <li>
                <button type="button" className="sign-out" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
                  Sign out
                </button>
              </li>
            </HeaderMenu>
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

/** The header's market search: sends the term to the markets page, whose results follow the address (`/?q=…`). */
function HeaderSearch() {
  const [, navigate] = useLocation();
  const [text, setText] = useState('');
  return (
    <form
      role="search"
      aria-label="Markets"
      className="header-search"
      onSubmit={(e) => {
        e.preventDefault();
        const q = text.trim();
        navigate(q ? `${PATHS.home}?q=${encodeURIComponent(q)}` : PATHS.home);
      }}
    >
      <input type="search" aria-label="Find a market" placeholder="Find a market" value={text} onChange={(e) => setText(e.target.value)} />
    </form>
  );
}

/** Light or dark, kept for good (lib/theme.ts); until chosen, the system's setting rules. */
function ThemeToggle() {
  const scheme = useScheme();
  const dark = scheme === 'dark';
  return (
    <button
      type="button"
      className="theme-toggle"
      aria-pressed={dark}
      aria-label="Dark mode"
      title={dark ? 'Switch to light' : 'Switch to dark'}
      onClick={() => chooseScheme(dark ? 'light' : 'dark')}
    >
      {dark ? '☾' : '☀'}
    </button>
  );
}
