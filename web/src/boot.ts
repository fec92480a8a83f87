/**
 * The script a page with the service's first view starts with (src/http/pages/web-app.ts puts it in place of the app's
 * entry): the entry is fetched with the HTML (a modulepreload link) but evaluated only after the view is painted, so the
 * first paint does not wait for the app's code (~300 kB) to be evaluated. The entry's address is this element's
 * `data-entry`.
 */
const entry = document.querySelector<HTMLScriptElement>('script[data-entry]')?.dataset.entry;
if (entry) requestAnimationFrame(() => setTimeout(() => void import(/* @vite-ignore */ entry), 0));
