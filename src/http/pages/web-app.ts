import fs from 'node:fs';
import path from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import { escapeHtml, toHtml, toHtmlBody, type HtmlRenderer } from '../../documents/page';
import { methodNotAllowed } from '../../transports/rest';
import { perOrigin } from '../../transports/public-origin';
import { APP_ONLY_PAGES, appOnlyPage } from './web-app-pages';
import { precompressedAssets } from './precompressed-assets';

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
  const visit = (key: string, into: Set<string>) => {
    const chunk = manifest[key];
    if (!chunk || into.has(key)) return;
    into.add(key);
    for (const i of chunk.imports ?? []) visit(i, into);
  };
  for (const [key, chunk] of Object.entries(manifest)) if (chunk.isEntry) visit(key, loaded);
  const needed = new Set<string>();
  visit(module, needed);
  return [...needed].filter((k) => !loaded.has(k)).map((k) => `/${manifest[k]!.file}`);
}

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
export function webAppShell(dir: string): HtmlRenderer | null {
  let shell: string;
  try {
    shell = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  } catch {
    return null;
  }
  if (!shell.includes(ROOT_MARKER) || !/<title>[^<]*<\/title>/.test(shell)) return null;
  const [before, after] = shell.split(ROOT_MARKER) as [string, string];
  const manifest = readManifest(dir);
  return (page, markdownHref) => {
    // What the page's app reads and draws with first starts with the HTML: the API reads (credentials as the app's
    // fetch sends them, so the browser hands the answer to it) and the page's own modules.
    const early = [
      ...(page.preload ?? []).map((href) => `  <link rel="preload" as="fetch" crossorigin href="${escapeHtml(href)}" />\n`),
      ...[...new Set((page.modules ?? []).flatMap((m) => chunkFiles(manifest, m)))].map(
        (href) => `  <link rel="modulepreload" crossorigin href="${escapeHtml(href)}" />\n`,
      ),
    ].join('');
    const head = before
      .replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(page.title)}</title>`)
      .replace('</head>', () => `${early}  <link rel="alternate" type="text/markdown" href="${escapeHtml(markdownHref)}" />\n  </head>`);
    return `${head}<main>\n${toHtmlBody(page)}\n</main>${after}`;
  };
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
      res.type('text/html; charset=utf-8').send(body(origin(req)));
    });
    router.all(entry.path, methodNotAllowed(['GET']));
  }
  return router;
}

/** The renderer for app pages: the shell when the app is built, plain HTML otherwise. */
export function appPageRenderer(dir: string | null): HtmlRenderer {
  return (dir && webAppShell(dir)) || toHtml;
}
