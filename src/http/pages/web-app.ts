import fs from 'node:fs';
import path from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import { escapeHtml, toHtml, toHtmlBody, type FirstRead, type HtmlRenderer, type Page } from '../../documents/page';
import type { Logger } from '../../logger';
import { methodNotAllowed } from '../../transports/rest';
import { perOrigin } from '../../transports/public-origin';
import { APP_ONLY_PAGES, appOnlyPage } from './web-app-pages';
import { precompressedAssets } from './precompressed-assets';
import { sendHtml } from './compressed-html';

/** Where `npm run build` puts the browser app (vite build): index.html, assets/, .vite/manifest.json. */
export function defaultWebDir(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) return path.join(__dirname, 'web');
    dir = up;
  }
  return path.join(dir, 'dist', 'web');
}

const ROOT_MARKER = '<!--server-rendered-->';

interface ManifestChunk {
  file: string;
  imports?: string[];
  isEntry?: boolean;
}

/**
 * The built files a module needs (it and its static imports, recursively) that the entry's own HTML does not already
 * load, from vite's manifest (.vite/manifest.json); an unknown module needs nothing.
 */
function chunkFiles(manifest: Record<string, ManifestChunk>, module: string): string[] {
  const loaded = new Set<string>();
  for (const [key, chunk] of Object.entries(manifest)) if (chunk.isEntry) withImports(manifest, key, loaded);
  const needed = new Set<string>();
  withImports(manifest, module, needed);
  return [...needed].filter((k) => !loaded.has(k)).map((k) => `/${manifest[k]!.file}`);
}

/** Adds a module's manifest key and its static imports' keys, recursively, to `into` (an unknown key adds nothing). */
function withImports(manifest: Record<string, ManifestChunk>, key: string, into: Set<string>): void {
  const chunk = manifest[key];
  if (!chunk || into.has(key)) return;
  into.add(key);
  for (const i of chunk.imports ?? []) withImports(manifest, i, into);
}

/**
 * The shell's head for a page that carries the app's first view, given the page's own modules' files: the app's entry
 * is started by web/src/boot.ts once the view is painted, which then fetches the entry, the chunks it imports (which
 * vite's HTML preloads) and those modules at once. The HTML names none of them for the browser to fetch early: a
 * preloaded module is compiled when it arrives, and on a fast link that lands before the first paint and delays it
 * (bench/README.md). Null when the build has no boot script or the head no entry script as vite writes it.
 */
function startedAfterPaint(head: string, manifest: Record<string, ManifestChunk>): ((modules: readonly string[]) => string) | null {
  const entry = manifest['index.html']?.file;
  const boot = manifest['src/boot.ts']?.file;
  const tag = `<script type="module" crossorigin src="/${entry}"></script>`;
  if (!entry || !boot || !head.includes(tag)) return null;
  // The chunks the entry imports, which vite's HTML preloads: boot fetches them with the entry instead.
  const keys = new Set<string>();
  withImports(manifest, 'index.html', keys);
  keys.delete('index.html');
  const imported = [...keys].map((k) => `/${manifest[k]!.file}`);
  const preloads = new Set(imported.map((file) => `<link rel="modulepreload" crossorigin href="${file}">`));
  const shell = head
    .split('\n')
    .filter((line) => !preloads.has(line.trim()))
    .join('\n');
  return (modules) =>
    shell.replace(
      tag,
      () =>
        `<script type="module" crossorigin src="/${boot}" data-entry="/${entry}" data-modules="${escapeHtml([...imported, ...modules].join(' '))}"></script>`,
    );
}

/** Renders the app's first view of a page from its reads (web/src/entry-server.tsx, built into dist/web/ssr). */
export type FirstViewRenderer = (url: string, reads: readonly FirstRead[]) => string;

/** The built app's first-view renderer, or null when it is not built (pages then carry no first view). */
export function firstViewRenderer(dir: string): FirstViewRenderer | null {
  const file = path.join(dir, 'ssr', 'entry-server.js');
  if (!fs.existsSync(file)) return null;
  const loaded = require(file) as { renderFirstView?: FirstViewRenderer };
  return typeof loaded.renderFirstView === 'function' ? loaded.renderFirstView : null;
}

/** JSON inside a <script> data block: `<` escaped, so no text in it can close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

function readManifest(dir: string): Record<string, ManifestChunk> {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  } catch {
    return {};
  }
}

/**
 * The built app's index.html as a renderer: the page's title in <title>, and the page's server-rendered
 * content inside the root element, which the app replaces when it starts. Null when the app is not built
 * (the pages are then served as plain HTML, as before the app existed).
 */
export function webAppShell(dir: string, log?: Logger): HtmlRenderer | null {
  let shell: string;
  try {
    shell = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  } catch {
    return null;
  }
  if (!shell.includes(ROOT_MARKER) || !/<title>[^<]*<\/title>/.test(shell)) return null;
  const [before, after] = shell.split(ROOT_MARKER) as [string, string];
  const manifest = readManifest(dir);
  const viewBefore = startedAfterPaint(before, manifest);
  const renderView = firstViewRenderer(dir);
  /** The app's first view of the page, or undefined (none asked for, or the renderer failed: the app then draws it). */
  // A view is kept with the reads it was drawn from (first-reads.ts keeps those for a second), one per address.
  const views = new WeakMap<readonly FirstRead[], Map<string, string>>();
  const firstView = (page: Page): string | undefined => {
    if (!page.firstView || !renderView) return undefined;
    const { url, reads } = page.firstView;
    try {
      let byUrl = views.get(reads);
      if (!byUrl) views.set(reads, (byUrl = new Map()));
      let view = byUrl.get(url);
      if (view === undefined) byUrl.set(url, (view = renderView(url, reads)));
      return view;
    } catch (err) {
      log?.warn('first view not rendered', { url: page.firstView.url, err: err instanceof Error ? err.message : String(err) });
      return undefined;
    }
  };
  const render: HtmlRenderer = (page, markdownHref) => {
    const view = firstView(page);
    // Reads the page carries are not fetched again.
    const carried = new Set(view ? page.firstView!.reads.map((r) => r.href) : []);
    const modules = [...new Set((page.modules ?? []).flatMap((m) => chunkFiles(manifest, m)))];
    const afterPaint = view !== undefined && viewBefore !== null;
    // What the page's app reads and draws with first starts with the HTML: the API reads (credentials as the app's
    // fetch sends them, so the browser hands the answer to it) and, unless boot fetches them after the first paint, the
    // page's own modules.
    const early = [
      ...(page.preload ?? [])
        .filter((href) => !carried.has(href))
        .map((href) => `  <link rel="preload" as="fetch" crossorigin href="${escapeHtml(href)}" />\n`),
      ...(afterPaint ? [] : modules.map((href) => `  <link rel="modulepreload" crossorigin href="${escapeHtml(href)}" />\n`)),
    ].join('');
    const head = (afterPaint ? viewBefore(modules) : before)
      .replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(page.title)}</title>`)
      .replace('</head>', () => `${early}  <link rel="alternate" type="text/markdown" href="${escapeHtml(markdownHref)}" />\n  </head>`);
    if (!view) return `${head}<main>\n${toHtmlBody(page)}\n</main>${after}`;
    // The app's first view, then the server's own page for readers without JavaScript (agents' fetchers), folded: the
    // app's first render replaces both. The reads come after the root, for the app to start with (web/src/main.tsx).
    const reads = `<script type="application/json" id="first-reads">${scriptJson(page.firstView!.reads)}</script>\n`;
    return `${head}${view}\n<details class="server-page"><summary>This page as a document (for agents)</summary>\n${toHtmlBody(page)}\n</details>${after.replace('</body>', () => `${reads}</body>`)}`;
  };
  render.firstViews = renderView !== null;
  return render;
}

/**
 * The browser app's hashed assets (brotli or gzip as the browser accepts, cached for a year: a new build has new
 * names), to mount at /assets.
 */
export function webAppAssets(dir: string) {
  return precompressedAssets(path.join(dir, 'assets'));
}

/** The browser app's app-only pages (sign-in, portfolio, …), each the shell around a short server-rendered fallback. */
export function webAppRouter(dir: string, html: HtmlRenderer, origin: (req: Request) => string): Router {
  const router = express.Router();
  for (const entry of APP_ONLY_PAGES) {
    // Each page links to the service's documents at the address the reader reached.
    const body = perOrigin((base) => html(appOnlyPage(entry, base), `${base}/llms.txt`));
    router.get(entry.path, (req: Request, res: Response) => {
      res.setHeader('Cache-Control', 'no-cache');
      sendHtml(req, res, body(origin(req)));
    });
    router.all(entry.path, methodNotAllowed(['GET']));
  }
  return router;
}

/** The renderer for app pages: the shell when the app is built, plain HTML otherwise. */
export function appPageRenderer(dir: string | null, log?: Logger): HtmlRenderer {
  return (dir && webAppShell(dir, log)) || toHtml;
}
