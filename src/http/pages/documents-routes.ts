import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import type { InvokeDeps } from '../../registry/invoke';
import { AppError } from '../../errors/app-error';
import { methodNotAllowed } from '../../transports/rest';
import { buildOpenApi } from '../../documents/openapi';
import { areaPage, fullReference, landingPage } from '../../documents/content-pages';
import { toHtml, toMarkdown, type HtmlRenderer, type Page } from '../../documents/page';
import { aiPluginManifest, LOGO_SVG } from '../../documents/ai-plugin';
import { AREAS, areaBySlug } from '../../documents/service-info';
import type { Area } from '../../registry/method';
import { defaultOrigin, perOrigin, publicOriginOf } from '../../transports/public-origin';
import { hrefOf, readFirst, type PlannedRead } from './first-reads';
import { sendHtml } from './compressed-html';

interface Rendered {
  markdown: string;
  html: string;
}

/**
 * The web app's home reads its list of markets first, exactly so (web/src/features/markets/market-pages.ts): the page
 * carries its answer and the app's first view drawn from it when the app is built, else it starts with the HTML.
 */
const HOME_FIRST_READ: PlannedRead = { method: 'list_markets', input: { status: 'active', sort: 'volume', limit: 20, sparkline: true } };

const render = (page: Page, markdownHref: string, html: HtmlRenderer = toHtml): Rendered => ({ markdown: toMarkdown(page), html: html(page, markdownHref) });

/**
 * Serves the generated documents (`pageHtml` renders the landing page's HTML). Everything is built here from the
 * registry, once per app and address (the documents name the address the reader reached: public-origin.ts). The
 * default address is built at once, so a registry that cannot be documented stops the start instead of serving a
 * wrong document.
 */
export function documentsRouter(deps: InvokeDeps, pageHtml: HtmlRenderer = toHtml): Router {
  const { registry, config } = deps.services;
  const homeReadHref = hrefOf(registry.get(HOME_FIRST_READ.method)!.rest!.path, HOME_FIRST_READ.input);
  const documents = perOrigin((base) => {
    const home = { ...landingPage(registry, config, base), preload: [homeReadHref] };
    return {
      openapi: JSON.stringify(buildOpenApi(registry, config, base)),
      // The landing page is also the web app's home: its HTML comes inside the app's shell when the app is built.
      landing: render(home, `${base}/llms.txt`, pageHtml),
      landingPage: home,
      full: toMarkdown(fullReference(registry, config, base)),
      areas: new Map<Area, Rendered>(
        (Object.keys(AREAS) as Area[]).map((a) => [a, render(areaPage(registry, config, base, a), `${base}/docs/${AREAS[a].slug}.md`)]),
      ),
      plugin: JSON.stringify(aiPluginManifest(config, base)),
    };
  });
  documents(defaultOrigin(config));
  const at = (req: Request) => documents(publicOriginOf(req, config));

  const router = express.Router();
  // Public documents: any origin may read them (API explorers, agents running in a browser).
  const publicDoc = (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cache-Control', 'public, max-age=300');
    next();
  };
  const get = (paths: string[], handler: (req: Request, res: Response, next: NextFunction) => void) => {
    router.get(paths, publicDoc, handler);
    router.all(paths, methodNotAllowed(['GET']));
  };

  /** Markdown when the caller asks for it (Accept: text/markdown), else HTML. */
  const negotiated = (req: Request, res: Response, page: Rendered, forceMarkdown = false) => {
    res.vary('Accept');
    if (forceMarkdown || req.accepts(['text/html', 'text/markdown']) === 'text/markdown') res.type('text/markdown').send(page.markdown);
    else sendHtml(req, res, page.html);
  };
  /** llms.txt files are markdown; plain text unless markdown is asked for by name. */
  const markdownText = (req: Request, res: Response, markdown: string) => {
    res.vary('Accept');
    res.type(req.accepts(['text/plain', 'text/markdown']) === 'text/markdown' ? 'text/markdown' : 'text/plain').send(markdown);
  };

  get(['/openapi.json', '/api/openapi.json'], (req, res) => {
    res.type('application/json').send(at(req).openapi);
  });
  get(['/'], (req, res, next) => {
    // The app's shell names hashed assets that the next build replaces: always revalidate it.
    res.setHeader('Cache-Control', 'no-cache');
    const docs = at(req);
    const asHtml = req.accepts(['text/html', 'text/markdown']) !== 'text/markdown';
    if (!pageHtml.firstViews || !asHtml) {
      negotiated(req, res, docs.landing);
      return;
    }
    // The app's first view of the home is drawn from this moment's markets (read and drawn at most once a second,
    // first-reads.ts and web-app.ts); when the reads are refused, the page is the landing page the app draws itself.
    readFirst(deps, req, res, [HOME_FIRST_READ]).then((reads) => {
      if (!reads) {
        negotiated(req, res, docs.landing);
        return;
      }
      res.vary('Accept');
      const page = { ...docs.landingPage, firstView: { url: req.originalUrl, reads } };
      sendHtml(req, res, pageHtml(page, `${publicOriginOf(req, config)}/llms.txt`));
    }, next);
  });
  get(['/llms.txt'], (req, res) => markdownText(req, res, at(req).landing.markdown));
  get(['/llms-full.txt'], (req, res) => markdownText(req, res, at(req).full));
  get(['/docs/:area'], (req, res, next) => {
    const raw = String(req.params.area);
    const asMarkdown = raw.endsWith('.md');
    const area = areaBySlug(asMarkdown ? raw.slice(0, -3) : raw);
    if (!area) {
      next(
        new AppError('NOT_FOUND', `No documentation page ${req.path}`, {
          hint: `Areas: ${Object.values(AREAS)
            .map((a) => a.slug)
            .join(', ')}.`,
        }),
      );
      return;
    }
    negotiated(req, res, at(req).areas.get(area)!, asMarkdown);
  });
  get(['/.well-known/ai-plugin.json'], (req, res) => {
    res.type('application/json').send(at(req).plugin);
  });
  get(['/logo.svg'], (_req, res) => {
    res.type('image/svg+xml').send(LOGO_SVG);
  });
  return router;
}
