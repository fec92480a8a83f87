/**
 * Every page of the app and its address pattern (wouter syntax). The route table (app/routes.tsx) maps
 * them to pages; the service serves the app's HTML shell at each (src/http/pages/web-app-pages.ts, checked by
 * test/http/pages/web-app.test.ts). Features link with the href helpers, never by hand-built strings.
 */
export const PATHS = {
  home: '/',
  signIn: '/signin',
  signUp: '/signup',
  market: '/markets/:slug',
  portfolio: '/portfolio',
  leaderboard: '/leaderboard',
  benchmark: '/benchmark',
  benchmarkMetrics: '/benchmark/metrics',
  trader: '/traders/:id',
  challenge: '/challenge',
  notifications: '/notifications',
  communityMarkets: '/community-markets',
  communityMarket: '/community-markets/:slug',
  agents: '/agents',
  settings: '/settings',
  watchlist: '/watchlist',
  replay: '/replay',
  replaySuite: '/replay/suite',
} as const;

export const marketHref = (slug: string) => `/markets/${encodeURIComponent(slug)}`;
export const traderHref = (id: string) => `/traders/${encodeURIComponent(id)}`;
/** The metrics page at one metric's explanation (its id anchor, as lib/benchmark.ts names them). */
export const metricHref = (anchor: string) => `/benchmark/metrics#${encodeURIComponent(anchor)}`;
export const communityMarketHref = (slug: string) => `/community-markets/${encodeURIComponent(slug)}`;
/** The page of a market the person holds or traded: a community market's page, or a mirrored market's. */
export const heldMarketHref = (slug: string, community: boolean) => (community ? communityMarketHref(slug) : marketHref(slug));

/** Sign-in that returns to `next` (a path on this site) afterwards. */
export const signInHref = (next?: string) => (next && next !== PATHS.signIn ? `${PATHS.signIn}?next=${encodeURIComponent(next)}` : PATHS.signIn);

/** A `next` parameter is followed only when it is a path on this site (no open redirect). */
export function safeNext(next: string | null | undefined): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : PATHS.home;
}

/** Whether a path fits a pattern of PATHS (`:name` matches one segment). */
export function pathMatches(pattern: string, path: string): boolean {
  const re = new RegExp(`^${pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+')}/?$`);
  return re.test(path);
}
