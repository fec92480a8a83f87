import { useEffect, useId, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { useAccount } from '../lib/account';
import { PATHS, pathMatches } from '../lib/paths';

/** The tabs a phone keeps at hand; every other page is under More. */
const TABS = [
  { href: PATHS.home, label: 'Markets', also: [PATHS.market] },
  { href: PATHS.portfolio, label: 'Portfolio', also: [] },
  { href: PATHS.leaderboard, label: 'Leaderboard', also: [PATHS.trader] },
  { href: PATHS.notifications, label: 'Notifications', also: [] },
] as const;

const MORE = [
  { href: PATHS.watchlist, label: 'Watchlist' },
  { href: PATHS.communityMarkets, label: 'Community' },
  { href: PATHS.benchmark, label: 'Benchmark' },
  { href: PATHS.replay, label: 'Replay' },
  { href: PATHS.replaySuite, label: 'Replay board' },
  { href: PATHS.challenge, label: 'Challenge' },
  { href: PATHS.agents, label: 'Agents' },
  { href: PATHS.settings, label: 'Settings' },
] as const;

/**
 * The bottom tab bar of a narrow screen (shown below 640 px by app/phone.css; the header's links take over
 * above): four tabs and More, which opens the rest of the site's pages (sign in, and the account menu with sign out, stay in the header).
 */
export function TabBar() {
  const id = useId();
  const [location] = useLocation();
  const [open, setOpen] = useState(false);
  const account = useAccount();
  const unread = account.data?.unreadNotifications ?? 0;
  // A page chosen from More closes it.
  useEffect(() => setOpen(false), [location]);
  const current = (href: string, also: readonly string[]) => location === href || also.some((p) => pathMatches(p, location));
  // The More page the location is under; the longest match wins (/replay/suite is Replay board, not Replay).
  const moreCurrent = MORE.filter((m) => location === m.href || location.startsWith(`${m.href}/`)).sort((a, b) => b.href.length - a.href.length)[0]?.href;
  return (
    <nav aria-label="Tabs" className="tab-bar">
      <ul id={`${id}-more`} className="tab-more" hidden={!open}>
        {MORE.map((m) => (
          <li key={m.href}>
            <Link href={m.href} aria-current={m.href === moreCurrent ? 'page' : undefined}>
              {m.label}
            </Link>
          </li>
        ))}
      </ul>
      <ul className="tab-list">
        {TABS.map((t) => (
          <li key={t.href}>
            <Link href={t.href} aria-current={current(t.href, t.also) ? 'page' : undefined}>
              {t.label}
              {t.href === PATHS.notifications && unread > 0 ? (
                <span className="tab-count">
                  {unread}
                  <span className="visually-hidden"> unread</span>
                </span>
              ) : null}
            </Link>
          </li>
        ))}
        <li>
          <button type="button" className="tab-more-button" aria-expanded={open} aria-controls={`${id}-more`} onClick={() => setOpen((o) => !o)}>
            More
          </button>
        </li>
      </ul>
    </nav>
  );
}
