import type { Block, Page } from '../../documents/page';

/**
 * The app's pages that exist only in the browser (no server-rendered content of their own): the service
 * answers each with the app's HTML shell around a short fallback page. Keep in step with web/src/lib/paths.ts
 * (test/http/pages/web-app.test.ts checks); `module` is the page's source in web/ (its chunk in vite's manifest, which the
 * shell starts fetching with the HTML; test/web/bundle.test.ts checks each is a chunk). Pages with server content (/, /markets/{slug}, /community-markets/{slug})
 * are served by their own routers.
 */
export const APP_ONLY_PAGES: { path: string; module: string; title: string; about: string }[] = [
  { path: '/signin', module: 'src/features/auth/sign-in-page.tsx', title: 'Sign in', about: 'Sign in with your email and password.' },
  {
    path: '/signup',
    module: 'src/features/auth/sign-up-page.tsx',
    title: 'Sign up',
    about: 'Create an account with 1000 virtual dollars to trade prediction markets.',
  },
  {
    path: '/portfolio',
    module: 'src/features/portfolio/portfolio-page.tsx',
    title: 'Portfolio',
    about: 'Your cash, positions, profit and loss, and trade history.',
  },
  {
    path: '/watchlist',
    module: 'src/features/watchlist/watchlist-page.tsx',
    title: 'Watchlist',
    about: 'The markets you watch, their prices and your price alerts.',
  },
  {
    path: '/leaderboard',
    module: 'src/features/leaderboard/leaderboard-page.tsx',
    title: 'Leaderboards',
    about: 'The top traders by profit, volume, accuracy or trades, weekly, monthly or all time (GET /api/leaderboard).',
  },
  {
    path: '/benchmark',
    module: 'src/features/benchmark/board-page.tsx',
    title: 'Forecasting benchmark',
    about:
      'The season boards of the forecasting benchmark by alpha, Brier, log score, closing-line value, Sharpe, return or drawdown, with intervals (GET /api/benchmark/leaderboard).',
  },
  {
    path: '/benchmark/metrics',
    module: 'src/features/benchmark/metrics-page.tsx',
    title: 'Benchmark metrics',
    about: 'What each forecasting benchmark figure means and its formula: Brier, log score, alpha, calibration, risk, closing-line value, intervals, seasons.',
  },
  {
    path: '/traders/:id',
    module: 'src/features/trader/trader-page.tsx',
    title: 'Trader profile',
    about:
      "A trader's level, stats, badges, forecasting record and benchmark record (GET /api/user/stats?userId=…, GET /api/agents/{id}/reputation, GET /api/benchmark/record).",
  },
  {
    path: '/replay',
    module: 'src/features/replay/replay-page.tsx',
    title: 'Replay',
    about:
      'Play through simulated days of markets at your own pace: read the news, buy, state your forecasts, then see your record (POST /api/replays, then the run’s own key).',
  },
  {
    path: '/replay/suite',
    module: 'src/features/replay/suite-board-page.tsx',
    title: 'Replay suite board',
    about: 'Each account’s mean alpha across the published replay suite’s scenarios, with its interval (GET /api/replay-suite/board).',
  },
  {
    path: '/challenge',
    module: 'src/features/challenge/challenge-page.tsx',
    title: 'Daily challenge',
    about: "Today's challenge, your progress and its reward.",
  },
  {
    path: '/notifications',
    module: 'src/features/notifications/notifications-page.tsx',
    title: 'Notifications',
    about: 'Your badges, level-ups, settlements and referrals.',
  },
  {
    path: '/community-markets',
    module: 'src/features/community-markets/community-markets-page.tsx',
    title: 'Community markets',
    about: 'Questions created by people, with their own outcomes (GET /api/user-markets).',
  },
  {
    path: '/agents',
    module: 'src/features/agents/agents-page.tsx',
    title: 'Agents',
    about: 'Create an agent account and connect it over REST, MCP or JSON-RPC.',
  },
  {
    path: '/settings',
    module: 'src/features/settings/settings-page.tsx',
    title: 'Account settings',
    about: 'Your display name, password, sessions and account.',
  },
];

/** What a reader without JavaScript (or an agent fetching HTML) gets at an app-only page. */
export function appOnlyPage(entry: { module: string; title: string; about: string }, baseUrl: string): Page {
  const blocks: Block[] = [
    { heading: 1, text: entry.title },
    { paragraph: [entry.about, ' This page is part of the web app and needs JavaScript.'] },
    {
      paragraph: [
        'Agents: everything the app does is in the public API. Start at ',
        { link: 'llms.txt', href: `${baseUrl}/llms.txt` },
        ' or the ',
        { link: 'OpenAPI document', href: `${baseUrl}/openapi.json` },
        '. ',
        { link: 'Home', href: `${baseUrl}/` },
        '.',
      ],
    },
  ];
  return { title: entry.title, blocks, modules: [entry.module] };
}
