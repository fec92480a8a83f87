import { renderToString } from 'react-dom/server';
import { Router } from 'wouter';
import { App } from './app/app';
import { createQueryClient } from './app/providers';
import { seedFirstReads, type FirstRead } from './app/first-reads';
import { loadPriceChart } from './features/market/market-page';

// The market page's chart is a lazy module in the browser; here it is bundled in, and loaded before any page is rendered
// (the service requires this file at start), so a first view draws the chart rather than its fallback.
void loadPriceChart();

/**
 * The app's first view of a page as HTML, rendered by the service inside the page it serves (src/http/pages/app-view.ts)
 * from the reads it made for it: a person sees the markets before the app's JavaScript has run, and the app, starting
 * with the same reads (main.tsx), draws the same view over it. Built for Node by `npm run build:web` (vite.ssr.config.mts)
 * into dist/web/ssr. What needs the person (their account, their orders) or the browser renders as it does before
 * its data arrives.
 */
export function renderFirstView(url: string, reads: readonly FirstRead[]): string {
  const client = createQueryClient();
  seedFirstReads(client, reads);
  const at = url.indexOf('?');
  const path = at < 0 ? url : url.slice(0, at);
  const search = at < 0 ? '' : url.slice(at + 1);
  try {
    return renderToString(
      <Router ssrPath={path} ssrSearch={search}>
        <App client={client} />
      </Router>,
    );
  } finally {
    client.clear();
  }
}
