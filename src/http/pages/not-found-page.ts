import type { Request, Response } from 'express';
import type { HtmlRenderer, Page } from '../../documents/page';
import { sendHtml } from './compressed-html';

/**
 * The id of the not-found page's heading. The web app starts on a page it does not know only when the server's content carries
 * it (web/src/main.tsx), and then shows its own "Nothing here" page with the header and footer.
 */
export const NOT_FOUND_HEADING_ID = 'not-found';

/**
 * Whether the reader asked for HTML before JSON: a browser (Accept: text/html, …, *\/*;q=0.8). An agent sending no Accept,
 * Accept: *\/* or application/json keeps the JSON error.
 */
export const prefersHtml = (req: Request) => req.accepts(['application/json', 'text/html']) === 'text/html';

/** What a browser gets at an address that is no page: a short page, in the app's shell when the app is built. */
export function notFoundPage(baseUrl: string): Page {
  return {
    title: 'Not found',
    blocks: [
      { heading: 1, text: 'Nothing here', id: NOT_FOUND_HEADING_ID },
      { paragraph: ['This address is not a page of this service. Go to the ', { link: 'markets', href: `${baseUrl}/` }, '.'] },
    ],
  };
}

/** Answers 404 with the not-found page (for a reader that prefers HTML: see prefersHtml). */
export function sendNotFoundPage(res: Response, html: HtmlRenderer, baseUrl: string): void {
  res.vary('Accept');
  res.setHeader('Cache-Control', 'no-cache');
  res.status(404);
  sendHtml(res.req, res, html(notFoundPage(baseUrl), `${baseUrl}/llms.txt`));
}
