import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';

/** What this module reads of an express (router 2) layer: its path matcher, whether it is mounted at the root, its handler. */
interface RouterLayer {
  match(path: string): unknown;
  slash?: boolean;
  handle: unknown;
}

const stackOf = (handle: unknown): RouterLayer[] | undefined => (handle as { stack?: RouterLayer[] } | null)?.stack;

/**
 * Whether some layer of a router could take a request for `path`. A router mounted at the root is looked
 * into; anything else that matches (a route, middleware, a router mounted at a prefix) counts, and so does a
 * layer whose matcher throws (a malformed escape in a parameter): the router answers that as it always has.
 */
export function mayRoute(stack: readonly RouterLayer[], path: string): boolean {
  return stack.some((layer) => {
    try {
      if (!layer.match(path)) return false;
    } catch {
      return true;
    }
    const inner = layer.slash ? stackOf(layer.handle) : undefined;
    return inner === undefined || mayRoute(inner, path);
  });
}

/**
 * `router`, entered only for a path one of its layers could take. A router that matches nothing hands the
 * request on with setImmediate (router 2), a turn of the event loop for every router passed: a REST call went
 * through the OAuth, JSON-RPC (and its agent card's) and MCP routers first, four turns, holding its objects
 * across each. Here it skips them synchronously; a matching request is handled by the router exactly as before.
 */
export function enterWhenRouted(router: Router): RequestHandler {
  const stack = stackOf(router);
  if (!stack) throw new TypeError('enterWhenRouted needs an express Router');
  return (req: Request, res: Response, next: NextFunction) => {
    if (mayRoute(stack, req.path)) {
      router(req, res, next);
      return;
    }
    next();
  };
}
