import type { ComponentType } from 'react';
import { PATHS } from '../lib/paths';
import { HomePage } from '../features/markets/home-page';
import { SignInPage } from '../features/auth/sign-in-page';
import { SignUpPage } from '../features/auth/sign-up-page';
import { MarketPage } from '../features/market/market-page';
import { PortfolioPage } from '../features/portfolio/portfolio-page';
import { LeaderboardPage } from '../features/leaderboard/leaderboard-page';
import { TraderPage } from '../features/trader/trader-page';
import { ChallengePage } from '../features/challenge/challenge-page';
import { NotificationsPage } from '../features/notifications/notifications-page';
import { CommunityMarketsPage } from '../features/community-markets/community-markets-page';
import { CommunityMarketPage } from '../features/community-markets/community-market-page';
import { AgentsPage } from '../features/agents/agents-page';
import { SettingsPage } from '../features/settings/settings-page';

/**
 * The route table: one line per page. Adding a page = a folder under features/, its path in lib/paths.ts,
 * a line here, and its path in the service's list of app pages (src/http/web-app-pages.ts).
 */
export const ROUTES: { path: string; component: ComponentType }[] = [
  { path: PATHS.home, component: HomePage },
  { path: PATHS.signIn, component: SignInPage },
  { path: PATHS.signUp, component: SignUpPage },
  { path: PATHS.market, component: MarketPage },
  { path: PATHS.portfolio, component: PortfolioPage },
  { path: PATHS.leaderboard, component: LeaderboardPage },
  { path: PATHS.trader, component: TraderPage },
  { path: PATHS.challenge, component: ChallengePage },
  { path: PATHS.notifications, component: NotificationsPage },
  { path: PATHS.communityMarkets, component: CommunityMarketsPage },
  { path: PATHS.communityMarket, component: CommunityMarketPage },
  { path: PATHS.agents, component: AgentsPage },
  { path: PATHS.settings, component: SettingsPage },
];
