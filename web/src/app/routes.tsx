import type { ComponentType } from 'react';
import { PATHS } from '../lib/paths';
import { lazyPage } from './lazy-page';
import { HomePage } from '../features/markets/home-page';
import { MarketPage } from '../features/market/market-page';

/**
 * The route table: one line per page. Adding a page = a folder under features/, its path in lib/paths.ts,
 * a line here, and its path and module in the service's list of app pages (src/http/pages/web-app-pages.ts).
 * The entry holds the home and market pages (where most visits start, and a link from every list): every other page
 * is its own chunk, which the service's HTML of that page starts fetching with the entry (`modulepreload`). A lazy
 * market page drew its chart later (bench:web, interleaved: 790 against 558 ms): one more suspended render and nine
 * more chunks before the chart's own.
 */
export const ROUTES: { path: string; component: ComponentType }[] = [
  { path: PATHS.home, component: HomePage },
  { path: PATHS.signIn, component: lazyPage(() => import('../features/auth/sign-in-page'), 'SignInPage') },
  { path: PATHS.signUp, component: lazyPage(() => import('../features/auth/sign-up-page'), 'SignUpPage') },
  { path: PATHS.market, component: MarketPage },
  { path: PATHS.portfolio, component: lazyPage(() => import('../features/portfolio/portfolio-page'), 'PortfolioPage') },
  { path: PATHS.leaderboard, component: lazyPage(() => import('../features/leaderboard/leaderboard-page'), 'LeaderboardPage') },
  { path: PATHS.benchmark, component: lazyPage(() => import('../features/benchmark/board-page'), 'BenchmarkBoardPage') },
  { path: PATHS.benchmarkMetrics, component: lazyPage(() => import('../features/benchmark/metrics-page'), 'MetricsPage') },
  { path: PATHS.trader, component: lazyPage(() => import('../features/trader/trader-page'), 'TraderPage') },
  { path: PATHS.challenge, component: lazyPage(() => import('../features/challenge/challenge-page'), 'ChallengePage') },
  { path: PATHS.notifications, component: lazyPage(() => import('../features/notifications/notifications-page'), 'NotificationsPage') },
  { path: PATHS.communityMarkets, component: lazyPage(() => import('../features/community-markets/community-markets-page'), 'CommunityMarketsPage') },
  { path: PATHS.communityMarket, component: lazyPage(() => import('../features/community-markets/community-market-page'), 'CommunityMarketPage') },
  { path: PATHS.agents, component: lazyPage(() => import('../features/agents/agents-page'), 'AgentsPage') },
  { path: PATHS.watchlist, component: lazyPage(() => import('../features/watchlist/watchlist-page'), 'WatchlistPage') },
  { path: PATHS.replay, component: lazyPage(() => import('../features/replay/replay-page'), 'ReplayPage') },
  { path: PATHS.replaySuite, component: lazyPage(() => import('../features/replay/suite-board-page'), 'SuiteBoardPage') },
  { path: PATHS.settings, component: lazyPage(() => import('../features/settings/settings-page'), 'SettingsPage') },
];
