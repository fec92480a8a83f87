import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { Backend } from './backends';
import { testConfig, type Config } from '../../src/config';
import { createLogger, type Logger } from '../../src/logger';
import { startService, type RunningService } from '../../src/start';
import type { Clock } from '../../src/registry/context';
import type { RateLimiter } from '../../src/limits/rate-limiter';
import type { PriceService } from '../../src/domain/trading/price-service';
import type { Resolve } from '../../src/outbound/guarded-post';
import { checkedAgent, type CheckedAgent } from './openapi-check';
import { migratedImage } from './pglite-image';
import { TEST_SIM_SECRET } from './sealed-venue';

export interface TestApp extends RunningService {
  config: Config;
  /** supertest agent whose every response is checked against the generated OpenAPI document. */
  api: CheckedAgent;
  /** Set when started with listen: the server's own origin (also BASE_URL). */
  baseUrl: string;
  close(): Promise<void>;
}

export interface TestAppOptions {
  config?: Record<string, string | number>;
  clock?: Clock;
  /** Listen on a real port (MCP and A2A clients need one); BASE_URL is then that origin. */
  listen?: boolean;
  /** With listen: the host name of that origin (default 127.0.0.1); a client must resolve it to 127.0.0.1. */
  hostName?: string;
  log?: Logger;
  /** A price source the test controls (test/support/markets.ts ControlledPrices). */
  prices?: PriceService;
  /** false: no market sync at start nor on a timer; the test calls services.marketSync.runOnce(). */
  background?: boolean;
  /** The built web app to serve (default dist/web when built); null: plain server-rendered pages. */
  webDir?: string | null;
  /** A rate limiter built by the test (e.g. with a short circuit-breaker probe period). */
  limiter?: (config: Config, log: Logger) => RateLimiter;
  /** Name resolution of outbound calls (webhooks): a stub plays DNS rebinding. */
  resolve?: Resolve;
}

/** High limits unless a test sets them: most tests are not about rate limiting. */
const TEST_DEFAULTS = {
  DATA_DIR: 'memory',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_REGISTER_PER_MIN: 100000,
  RATE_LIMIT_API_PER_MIN: 100000,
  RATE_LIMIT_TRADE_PER_MIN: 100000,
  RATE_LIMIT_SELL_PER_MIN: 100000,
  RATE_LIMIT_COMMENT_PER_MIN: 100000,
  REFERENCE_FORECASTERS: 'off',
  // A known venue secret: what a test reads of the simulated venue is the same on every run (sealed outcomes, issue 49).
  SIM_SECRET: TEST_SIM_SECRET,
};

export async function startTestApp(backend: Backend, opts: TestAppOptions = {}): Promise<TestApp> {
  const opened = await backend.open();
  let server: http.Server | undefined;
  let baseUrl = 'http://localhost:3000';
  if (opts.listen) {
    server = http.createServer();
    // As src/http/server.ts sets it: with Node's 5 s default, a client whose event loop stalls past undici's margin
    // (1 s) sends on a socket the server has just closed, and the call fails with ECONNRESET (seen under load).
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://${opts.hostName ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  }
  // The service is told the PostgreSQL database it is given, as main is: without DATABASE_URL it took itself for an
  // embedded one, so a replay run on the postgres backend was an in-memory PGlite (not a schema on the server) whose
  // image each service built by initdb and every migration on its first run, some 10 s of a loaded machine's CPU.
  const config = testConfig({ ...TEST_DEFAULTS, ...(opened.url ? { DATABASE_URL: opened.url } : {}), BASE_URL: baseUrl, ...(opts.config ?? {}) });
  const service = await startService(config, opts.log ?? createLogger('silent'), {
    db: opened.db,
    clock: opts.clock,
    validateOutput: true,
    prices: opts.prices,
    background: opts.background,
    webDir: opts.webDir,
    resolve: opts.resolve,
    runImage: backend.name === 'pglite' ? migratedImage : undefined,
    limiter: opts.limiter?.(config, opts.log ?? createLogger('silent')),
  });
  if (server) server.on('request', service.app);
  return {
    ...service,
    config,
    baseUrl,
    api: checkedAgent(service.app),
    async close() {
      if (server) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server!.close(() => resolve()));
      }
      await service.stop();
      await opened.drop();
    },
  };
}

/** The header that authenticates a call with an agent's (or a replay run's) key. */
export const bearer = (key: string): { Authorization: string } => ({ Authorization: `Bearer ${key}` });

let counter = 0;

/** Registers a fresh agent over REST and returns its id and key. */
export async function registerAgent(t: TestApp, name = 'Agent'): Promise<{ id: string; apiKey: string; email: string }> {
  counter += 1;
  const email = `agent${counter}-${Date.now()}@example.com`;
  const res = await t.api.post('/api/auth/register').send({ email, password: 'password123', displayName: `${name}${counter}`.slice(0, 20), isAgent: true });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.user.id, apiKey: res.body.user.apiKey, email };
}

export { request };
