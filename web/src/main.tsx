import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { ROUTES } from './app/routes';
import { pathMatches } from './lib/paths';
import './styles.css';
import './dark.css';
import './phone.css';

// The service puts the page's server-rendered content inside #root (readable without JavaScript). The app
// replaces it on its own pages; on a page it does not have yet, the server's content stays as it is. At an address
// that is no page the server's not-found page (heading id "not-found", src/http/pages/not-found-page.ts) gives way
// to the app's own, with the header and footer.
const root = document.getElementById('root')!;
const known = ROUTES.some((r) => pathMatches(r.path, window.location.pathname));
if (known || !root.textContent?.trim() || document.getElementById('not-found')) {
  root.replaceChildren();
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
