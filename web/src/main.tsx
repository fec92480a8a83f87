import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { createQueryClient } from './app/providers';
import { ROUTES } from './app/routes';
import { pathMatches } from './lib/paths';
import { firstReadsOf, seedFirstReads } from './app/first-reads';
import { applyStoredTheme } from './lib/theme';
import './styles.css';
import './dark.css';
import './phone.css';

// The service puts the page's server-rendered content inside #root (readable without JavaScript). The app
// replaces it on its own pages; on a page it does not have yet, the server's content stays as it is. At an address
// that is no page the server's not-found page (heading id "not-found", src/http/pages/not-found-page.ts) gives way
// to the app's own, with the header and footer.
applyStoredTheme();
const root = document.getElementById('root')!;
const known = ROUTES.some((r) => pathMatches(r.path, window.location.pathname));
if (known || !root.textContent?.trim() || document.getElementById('not-found')) {
  // Where the service drew the app's first view (entry-server.tsx), the app starts from the same reads, so its first
  // render draws that view again: the view stays on screen until then (React's first commit replaces the root's
  // content). Such a page loads this module only once the view is painted (boot.ts).
  const reads = firstReadsOf(document);
  const client = createQueryClient();
  seedFirstReads(client, reads);
  const app = (
    <StrictMode>
      <App client={client} />
    </StrictMode>
  );
  // Over a painted view, the first render is a transition: React yields to the browser every few milliseconds while
  // it draws the page again, instead of holding the page for the whole render.
  if (reads.length > 0) startTransition(() => createRoot(root).render(app));
  else {
    root.replaceChildren();
    createRoot(root).render(app);
  }
}
