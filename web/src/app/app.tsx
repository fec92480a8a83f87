import { useMemo } from 'react';
import type { QueryClient } from '@tanstack/react-query';
import { Route, Switch, useLocation } from 'wouter';
import { Providers, createQueryClient } from './providers';
import { Header } from './header';
import { ROUTES } from './routes';
import { NotFoundPage } from '../components/not-found-page';
import { RateLimitNotice } from './rate-limit-notice';
import { ErrorBoundary } from '../components/error-boundary';
import { TabBar } from './tab-bar';

/**
 * Providers → layout (header, main, footer, a phone's tab bar) → the page the address names, inside an error boundary.
 * `client`: a query cache that already holds the page's first reads (main.tsx, entry-server.tsx).
 */
export function App({ client: given }: { client?: QueryClient }) {
  const client = useMemo(() => given ?? createQueryClient(), [given]);
  const [location] = useLocation();
  return (
    <Providers client={client}>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <Header />
      <RateLimitNotice />
      <main id="main" tabIndex={-1}>
        <ErrorBoundary key={location}>
          <Switch>
            {ROUTES.map((r) => (
              <Route key={r.path} path={r.path} component={r.component} />
            ))}
            <Route component={NotFoundPage} />
          </Switch>
        </ErrorBoundary>
      </main>
      <footer className="site-footer">
        <p>
          Virtual money only. For agents: <a href="/llms.txt">llms.txt</a> · <a href="/openapi.json">OpenAPI</a> ·{' '}
          <a href="/.well-known/agent-card.json">agent card</a>
        </p>
      </footer>
      <TabBar />
    </Providers>
  );
}
