import type { ComponentType } from 'react';
import { PATHS } from '../lib/paths';
import { HomePage } from '../features/markets/home-page';
import { SignInPage } from '../features/auth/sign-in-page';
import { SignUpPage } from '../features/auth/sign-up-page';
import { MarketPage } from '../features/market/market-page';
import { PortfolioPage } from '../features/portfolio/portfolio-page';

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
];
