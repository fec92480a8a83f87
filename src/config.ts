import { availableParallelism } from 'node:os';
import { z } from 'zod';

/** Every variable has a default that works offline (DESIGN.md, Configuration). */
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** The settings, each described for docs/configuration.md (src/documents/configuration-reference.ts). */
export const CONFIG_FIELDS = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000).describe('listen port'),
  HOST: z.string().min(1).default('127.0.0.1').describe('listen address (the Dockerfile sets `0.0.0.0`)'),
  /**
   * The service's one public address. Unset, the service names itself by the address each request reached
   * (src/transports/public-origin.ts): loopback names on its port, or what a trusted proxy reports.
   */
  BASE_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      "the service's one public address (`http://` or `https://`, trailing `/` dropped), used in documents, token audiences, links, the CSRF check and MCP's Host check whatever the request's `Host`; `https://` also turns on HSTS and `Secure` cookies. Unset: each request names the address it reached (docs/operating.md, \"The service's address\")",
    ),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string')
    .optional()
    .describe('`postgres://` or `postgresql://` connection string; unset → embedded PGlite'),
  DATA_DIR: z.string().min(1).default('./data').describe('embedded database directory; `memory` keeps nothing'),
  DB_POOL_SIZE: positiveInt(10).describe('PostgreSQL pool size'),
  /**
   * Searches running in PostgreSQL at once; the rest queue in the service (src/db/concurrency-gate.ts). Twice
   * the CPUs: a search holds its place across its round trips, during which its backend computes nothing.
   */
  SEARCH_CONCURRENCY: positiveInt(2 * availableParallelism()).meta({
    description: "searches running in PostgreSQL at once; more wait their turn in the service, so CPU-bound reads never crowd the machine's cores",
    shownDefault: 'twice the CPUs',
  }),
  DB_CONNECT_TIMEOUT_MS: positiveInt(5000).describe('wait for a pool connection before answering 503 `SERVICE_UNAVAILABLE`'),
  DB_STATEMENT_TIMEOUT_MS: positiveInt(10000).describe(
    'PostgreSQL `statement_timeout`, capped 250 ms under `DB_QUERY_TIMEOUT_MS` (idle-in-transaction timeout is twice this)',
  ),
  /**
   * The service's own bound on every statement (pg's client-side query_timeout): one that has no answer by
   * then fails with 503 and its connection is dropped. It is what catches a stalled link or server, which
   * statement_timeout (counted by the server, on statements it received) cannot.
   */
  DB_QUERY_TIMEOUT_MS: positiveInt(5000).describe(
    "the service's own bound on every statement (pg `query_timeout`): a statement with no answer by then — a stalled link or server — answers 503 `SERVICE_UNAVAILABLE` and its connection is dropped",
  ),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .optional()
    .describe('`redis://` or `rediss://`; when set, rate-limit counters are shared through Redis'),
  /** Prefix of every Redis key, so deployments (or test runs) can share one Redis. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[\w:.-]{1,64}$/, 'letters, digits and :._- only')
    .default('svc:')
    .describe('prefix of every Redis key (letters, digits, `:._-`, up to 64), so deployments or test runs can share one Redis'),
  MARKET_FEED: z.enum(['simulated', 'polymarket']).default('simulated').describe('`simulated` or `polymarket`'),
  POLYMARKET_GAMMA_URL: z.url().default('https://gamma-api.polymarket.com').describe('upstream market metadata'),
  POLYMARKET_CLOB_URL: z.url().default('https://clob.polymarket.com').describe('upstream prices, books, history'),
  /**
   * Bound on each attempt of a call to the venue, headers and body together; with POLYMARKET_RETRIES it bounds
   * how long a price (and so a trade) can wait on a venue that is slow or silent before answering 503.
   */
  POLYMARKET_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(4000)
    .describe('bound on each attempt of an upstream call, body included (100–60000)'),
  /** Attempts after the first (timeouts, network errors, 429, 5xx only). */
  POLYMARKET_RETRIES: z.coerce
    .number()
    .int()
    .min(0)
    .max(5)
    .default(2)
    .describe(
      'retries of an upstream call after a timeout, network error, 429 or 5xx (0–5); a price waits on the venue at most (1 + retries) × timeout plus about a second of backoff before answering 503',
    ),
  MARKET_SYNC_INTERVAL_S: positiveInt(60).describe('mirror sync period'),
  PRICE_MAX_AGE_S: positiveInt(120).describe('a live price older than this is unavailable (503, nothing changes)'),
  SIM_SEED: z.coerce.number().int().default(42).describe('seed of the simulated venue (same seed, same catalog and prices)'),
  /**
   * The master secret the simulated venue's price paths, news and outcomes are sealed under (issue 49; docs/market-data.md
   * "Sealed outcomes"). Unset, the service generates one on first start and keeps it in the database (venue_secret), so
   * restarts and every process keep the same sealed venue. Set it for a run that must be reproduced byte for byte
   * elsewhere (tests, development); never publish it: a season's or suite's own secret is what get_venue_commitments reveals.
   */
  SIM_SECRET: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'SIM_SECRET must be 64 hex digits (32 bytes)')
    .optional()
    .describe(
      'master secret (64 hex digits) that seals the simulated venue’s price paths, news and outcomes; unset: generated once and kept in the database (docs/market-data.md)',
    ),
  SIM_SPEED: z.coerce.number().positive().default(1).describe('time acceleration of the simulated venue (demos, tests)'),
  SIM_FEE_BPS: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(0)
    .describe(
      "the simulated venue's taker fee in basis points: rate × min(price, 1 − price) per share, rounded up to the micro-dollar, paid on every market buy and sale (docs/market-data.md); 0 (default) keeps quantity × price = totalCost",
    ),
  /**
   * The simulated venue with information: each market has a hidden probability moved by seeded news items (list_news),
   * its price follows with a lag, and its outcome is drawn from the hidden probability. off (default): the price is
   * the probability, as before, and there is no news.
   */
  SIM_INFORMATION: z
    .enum(['on', 'off'])
    .default('off')
    .transform((v) => v === 'on')
    .describe(
      "`on`: the simulated venue's markets get hidden probabilities moved by published news (`list_news`), prices that lag them and outcomes drawn from them (docs/market-data.md)",
    ),
  RATE_LIMIT_REGISTER_PER_MIN: positiveInt(5).describe('registrations per IP per minute; sign-ins get twice this per IP'),
  RATE_LIMIT_API_PER_MIN: positiveInt(30).describe('other API calls per minute (per account when authenticated, per IP otherwise)'),
  RATE_LIMIT_TRADE_PER_MIN: positiveInt(120).describe('trades per account per minute'),
  RATE_LIMIT_SELL_PER_MIN: positiveInt(120).describe('sells per account per minute'),
  RATE_LIMIT_COMMENT_PER_MIN: positiveInt(5).describe('comments an account may post per minute (post_comment)'),
  WEB_RATE_LIMIT_TIMES: positiveInt(10).describe(
    "a person's browser budget: `api` calls made with a person's session cookie (never an API key or token, never an agent's session) count against the `api` limit times this, on a counter of their own (docs/rate-limits.md)",
  ),
  REPLAY_RATE_LIMIT_TIMES: positiveInt(40).describe(
    "a replay run's own rate budget: each class's live limit a minute times this, counted per run (a run key's calls never touch the live budget, a live key's never the run's; docs/rate-limits.md)",
  ),
  /**
   * Proxy hops in front of the service (express `trust proxy`): the client IP comes from X-Forwarded-For, and
   * with BASE_URL unset the address from X-Forwarded-Host / X-Forwarded-Proto (else Forwarded, RFC 7239).
   */
  TRUST_PROXY: z.coerce
    .number()
    .int()
    .min(0)
    .max(10)
    .optional()
    .describe(
      'number of proxy hops (0–10) to trust (never a blanket `true`): the client IP comes from `X-Forwarded-For`, and with `BASE_URL` unset the address from `X-Forwarded-Host` / `X-Forwarded-Proto` (else RFC 7239 `Forwarded`)',
    ),
  /**
   * Lets webhooks and A2A push notifications go to loopback, private and link-local addresses (src/outbound/): for
   * tests and private networks only; unset, such targets are refused at registration and at delivery.
   */
  OUTBOUND_ALLOW_PRIVATE: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1')
    .describe(
      '`true` lets webhooks and A2A push notifications go to loopback, private and link-local addresses (tests, private networks); unset, such URLs are refused at registration and at delivery, checked on the address actually connected to',
    ),
  /** How long one outbound delivery may take, connect to last byte. */
  OUTBOUND_TIMEOUT_MS: positiveInt(10000).describe('bound on one outbound delivery, connect to last byte'),
  /**
   * Seconds between a webhook delivery's attempts, after the first: one retry per entry (with up to 20% added at
   * random), then the delivery is failed. The default retries for about 27 hours.
   */
  WEBHOOK_RETRY_SCHEDULE_S: z
    .string()
    .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'comma-separated seconds, e.g. 5,300,1800')
    .default('5,300,1800,7200,18000,36000,36000')
    .transform((s) => s.split(',').map(Number))
    .describe(
      'seconds before each retry of a webhook delivery (up to 20% added at random); after the last the delivery fails. The default retries for about 27 hours',
    ),
  /** Webhook endpoints one account may register. */
  WEBHOOK_MAX_ENDPOINTS: z.coerce.number().int().min(1).max(100).default(5).describe('webhooks one account may register'),
  /**
   * With MARKET_FEED=polymarket, the mirror records the prices, states and books it sees (mirror_market_history,
   * mirror_book_history) so a past window can be replayed (start_replay with source "mirror"); kept this many days.
   */
  MIRROR_HISTORY_DAYS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3650)
    .default(30)
    .describe('days the Polymarket mirror keeps the prices and books it saw, for replays of a past window (`start_replay` source `mirror`); 0 records nothing'),
  WATCHLIST_MAX_MARKETS: z.coerce.number().int().min(1).max(1000).default(100).describe("markets one account's watchlist may hold (watch_market)"),
  /**
   * Signs the agent card (JWS over its RFC 8785 canonical form): a private key as PEM (PKCS#8) or as a JWK in JSON
   * (EC P-256/P-384, Ed25519 or RSA). Unset: the card is served unsigned. The public key is served as a JWK Set.
   */
  AGENT_CARD_SIGNING_KEY: z
    .string()
    .min(1)
    .optional()
    .describe('private key (PEM PKCS#8, or a JWK as JSON; EC P-256/P-384, Ed25519 or RSA) that signs the agent card; unset, the card is unsigned'),
  /** The `kid` of the card signature; default the RFC 7638 thumbprint of the public key. */
  AGENT_CARD_SIGNING_KID: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: '`kid` of the card signature (default: the RFC 7638 thumbprint of the public key)', shownDefault: 'thumbprint' }),
  /** Pushed events (GET /api/events, GET /api/markets/stream): a comment line this often keeps idle streams open. */
  EVENT_STREAM_HEARTBEAT_MS: positiveInt(15_000).describe('a `: ping` comment this often on every open event or price stream'),
  /**
   * Event streams one account may hold open at once (per process); one more is refused with 429. The same bound, counted
   * apart, holds the account's A2A streams (SendStreamingMessage, SubscribeToTask).
   */
  EVENT_STREAMS_PER_ACCOUNT: positiveInt(5).describe(
    '`GET /api/events` streams one account may hold open at once in one process (429 beyond); the same number, counted apart, of A2A streams (SendStreamingMessage, SubscribeToTask: `RATE_LIMITED`, 429 with Retry-After)',
  ),
  /** Price streams one IP address may hold open at once (per process). */
  PRICE_STREAMS_PER_IP: positiveInt(20).describe('`GET /api/markets/stream` streams one IP address may hold open at once in one process'),
  /**
   * A stream whose client has not read what was buffered for this long is cut off (bounded memory per client); an
   * event stream's client resumes with Last-Event-ID and misses nothing.
   */
  EVENT_STREAM_STALL_MS: positiveInt(30_000).describe(
    'a stream client that has not read what was buffered for this long is disconnected (it resumes with `Last-Event-ID`)',
  ),
  /**
   * The reference forecasters (market, coin flip, favourite) act once a UTC day after a market sync: on by default, so
   * every benchmark board has its baselines; off for a deployment (or test) that wants no accounts of the service's own.
   */
  REFERENCE_FORECASTERS: z
    .enum(['on', 'off'])
    .default('on')
    .transform((v) => v === 'on')
    .describe(
      "`on`: the benchmark's three reference forecasters (market, coin flip, favourite) act once a UTC day after a market sync; `off` leaves them out (no accounts of the service's own)",
    ),
  /** How many open markets (the busiest first) the market and coin-flip references state a forecast on each day. */
  REFERENCE_MARKETS_PER_DAY: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(500)
    .describe('open markets (the busiest first) the market and coin-flip references state a forecast on each day (1–10000)'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info').describe('`debug`, `info`, `warn`, `error`, `silent`; structured JSON lines'),
  SUPPORT_EMAIL: z.email().default('support@example.com').describe('shown in documents'),
});

const ConfigSchema = CONFIG_FIELDS.transform((c) => ({ ...c, BASE_URL: c.BASE_URL?.replace(/\/+$/, '') }));

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {}

/** Parses the environment; a bad value throws one line naming the variable. Empty strings count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = ConfigSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`Invalid configuration: ${name}=${JSON.stringify(env[name] ?? '')}: ${issue.message}`);
  }
  return parsed.data;
}

/** Config for tests and tools: defaults plus overrides, never reading the process environment. */
export function testConfig(overrides: Record<string, string | number> = {}): Config {
  return loadConfig(Object.fromEntries(Object.entries(overrides).map(([k, v]) => [k, String(v)])));
}
