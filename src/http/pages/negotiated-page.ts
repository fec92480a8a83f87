import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { toHtml, toMarkdown, type HtmlRenderer, type Page } from '../../documents/page';
import { methodNotAllowed } from '../../transports/rest';
import { AppError } from '../../errors/app-error';
import { prefersHtml, sendNotFoundPage } from './not-found-page';
import { readFirst, type PlannedRead } from './first-reads';
import type { InvokeDeps } from '../../registry/invoke';
import { sendHtml } from './compressed-html';

/**
 * A GET-only page route negotiated by Accept: the data as JSON for application/json, the page as markdown
 * for text/markdown, plain HTML otherwise. `load` finds the data (or throws NOT_FOUND); `render` makes the
 * page and `canonical` its address, both at the service's address `origin` gives for the request; `html`
 * renders the HTML answer (plain, or inside the web app's shell), with the app's first view drawn from `firstView`'s reads
 * when it draws one. Nothing at the address: a browser gets the not-found page, an
 * agent the JSON error.
 */
export function negotiatedPageRouter<T>(
  path: string,
  load: (param: string) => Promise<T>,
  render: (data: T, base: string) => Page,
  canonical: (data: T, base: string) => string,
  origin: (req: Request) => string,
  html: HtmlRenderer = toHtml,
  firstView?: { deps: InvokeDeps; reads: (data: T, param: string) => PlannedRead[] },
): Router {
  const router = express.Router();
  router.get(path, async (req: Request, res: Response, next: NextFunction) => {
    try {
      const data = await load(String(req.params.slug));
      res.vary('Accept');
      res.setHeader('Cache-Control', 'no-cache');
      const type = req.accepts(['text/html', 'application/json', 'text/markdown']);
      if (type === 'application/json') {
        res.json(data);
        return;
      }
      const base = origin(req);
      const page = render(data, base);
      if (type === 'text/markdown') {
        res.type('text/markdown; charset=utf-8').send(toMarkdown(page));
        return;
      }
      // The web app's first view, drawn from the reads the app would make first (when the renderer draws one).
      const reads = html.firstViews && firstView ? await readFirst(firstView.deps, req, res, firstView.reads(data, String(req.params.slug))) : undefined;
      const viewed: Page = reads ? { ...page, firstView: { url: req.originalUrl, reads } } : page;
      sendHtml(req, res, html(viewed, canonical(data, base)));
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND' && prefersHtml(req)) sendNotFoundPage(res, html, origin(req));
      else next(err);
    }
  });
  router.all(path, methodNotAllowed(['GET']));
  return router;
}
