/**
 * The script a page with the service's first view starts with (src/http/pages/web-app.ts puts it in place of the app's
 * entry): once the view is painted, it fetches the app's entry (its address is this element's `data-entry`), the chunks
 * the entry imports and the page's own modules (`data-modules`, space-separated) at once, and starts the entry. Nothing
 * of the app is fetched before: a module that arrives before the first paint is compiled then, and the paint waits.
 */
// The person's light/dark choice first (web/src/lib/theme.ts keeps it under this key): the first view is drawn in it. Its
// few lines are here, not imported: an import would make this script wait for a shared chunk.
try {
  const theme = localStorage.getItem('theme');
  if (theme === 'light' || theme === 'dark') document.documentElement.dataset.theme = theme;
} catch {
  // Storage refused: the system's scheme rules.
}
const boot = document.querySelector<HTMLScriptElement>('script[data-entry]');
const entry = boot?.dataset.entry;
if (entry) {
  requestAnimationFrame(() =>
    setTimeout(() => {
      for (const href of (boot?.dataset.modules ?? '').split(' ').filter(Boolean)) {
        const link = document.createElement('link');
        link.rel = 'modulepreload';
        link.crossOrigin = '';
        link.href = href;
        document.head.append(link);
      }
      void import(/* @vite-ignore */ entry);
    }, 0),
  );
}
