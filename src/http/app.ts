import express, { type Express, type Request, type Response, type NextFunction } from 'express';
import type { Services } from '../services';
import { restRouter } from '../transports/rest';
import { sseRouter } from '../transports/sse';
import { errorHandler } from './error-handler';
import { AppError } from '../errors/app-error';
import type { InvokeDeps } from '../registry/invoke';
import { requestIdOf } from '../transports/http-call';
import { jsonRpcRouter } from '../transports/jsonrpc';
import { mcpRouter } from '../transports/mcp';
import { documentsRouter } from './pages/documents-routes';
import { marketPageRouter } from './pages/market-page-routes';
import { communityMarketPageRouter } from './pages/community-market-page-routes';
import { oauthRouter } from './oauth-routes';
import { hardening } from './hardening';
import { enterWhenRouted } from './enter-when-routed';
import { appPageRenderer, defaultWebDir, webAppAssets, webAppRouter } from './pages/web-app';
import { readinessReport } from './readiness';
import { publicOriginOf } from '../transports/public-origin';
import { prefersHtml, sendNotFoundPage } from './pages/not-found-page';

export interface AppOptions {
  /** Check every method result against its output schema (tests). */
  validateOutput?: boolean;
  /** The built browser app (default dist/web); null serves every page as plain server-rendered HTML. */
  webDir?: string | null;
}

export function createApp(services: Services, options: AppOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  if (services.config.TRUST_PROXY !== undefined) app.set('trust proxy', services.config.TRUST_PROXY);

  const deps: InvokeDeps = { services, clock: services.clock, log: services.log, validateOutput: options.validateOutput ?? false };

  // The access log line is debug-level: below that, no per-request listener is attached at all.
  const accessLog = services.config.LOG_LEVEL === 'debug';
  app.use((req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(req, res);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (!accessLog) {
      next();
      return;
    }
    res.on('finish', () => {
      services.log.debug('request', {
        requestId,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
    next();
  });
  app.use(hardening(services.config));
  // The web app's scripts and styles first: a page's assets then wait for no router's turn (express hands a request a
  // router cannot take on with setImmediate) while its first API read holds the thread.
  const webDir = options.webDir === undefined ? defaultWebDir() : options.webDir;
  if (webDir) app.use('/assets', webAppAssets(webDir));

  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/ready', async (_req, res) => {
    const { ok, checks } = await readinessReport(services);
    res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'not_ready', checks });
  });

  // JSON-RPC and MCP parse their own bodies: a malformed one is a protocol error there, not a REST 400.
  app.use(enterWhenRouted(oauthRouter(deps)));
  app.use(enterWhenRouted(jsonRpcRouter(deps)));
  app.use(enterWhenRouted(mcpRouter(deps)));
  // Server-Sent Event streams (GET, no body) before the REST routes, whose /api/markets/:idOrSlug would take /api/markets/stream.
  app.use(enterWhenRouted(sseRouter(services.registry, deps).router));
  app.use(express.json({ limit: '100kb', strict: false }));
  app.use(restRouter(services.registry, deps));
  // Pages people open are the web app's shell with the server-rendered page inside (plain HTML when unbuilt).
  const pageHtml = appPageRenderer(webDir, services.log);
  app.use(documentsRouter(deps, pageHtml));
  app.use(marketPageRouter(deps, pageHtml));
  app.use(communityMarketPageRouter(deps, pageHtml));
  const origin = (req: Request) => publicOriginOf(req, services.config);
  if (webDir) app.use(webAppRouter(webDir, pageHtml, origin));

  app.use('/api', (req: Request, _res: Response, next: NextFunction) => {
    next(
      new AppError('ENDPOINT_NOT_FOUND', `No endpoint ${req.method} ${req.originalUrl.split('?')[0]}`, {
        hint: `See ${origin(req)}/openapi.json for every endpoint.`,
        docs: `${origin(req)}/llms.txt`,
      }),
    );
  });
  app.use((req: Request, res: Response, next: NextFunction) => {
    // A browser opening an unknown address gets a page (the app's, when built); an agent gets the JSON error.
    if ((req.method === 'GET' || req.method === 'HEAD') && prefersHtml(req)) sendNotFoundPage(res, pageHtml, origin(req));
    else next(new AppError('NOT_FOUND', `Nothing at ${req.method} ${req.path}`, { hint: `Start at ${origin(req)}/` }));
  });
  app.use(errorHandler(services.log, origin));
  return app;
}
