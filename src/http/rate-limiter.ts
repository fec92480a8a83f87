import { createHash } from 'node:crypto';
import { MemoryStore, ipKeyGenerator, type Store, type Options } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import { createClient } from 'redis';
import { AppError } from '../errors/app-error';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { LimitClass } from '../registry/method';

export interface RateLimiter {
  /** Counts one call of `cls` for `key` (`user:<id>` or `ip:<addr>`); throws RATE_LIMITED (429) when over the limit. */
  consume(cls: LimitClass, key: string, ip: string): Promise<void>;
  /** Counts one sign-in attempt for an account (by email); throws RATE_LIMITED after too many recent failures. */
  beginLoginAttempt(email: string): Promise<void>;
  /** A successful sign-in is taken back out of the failure count. */
  loginSucceeded(email: string): Promise<void>;
  close(): Promise<void>;
}

const MINUTE_MS = 60_000;
/** Failed sign-ins per account: 10 per 15 minutes, whatever the address (a botnet cannot spread a guess list). */
export const LOGIN_FAILURES_PER_ACCOUNT = 10;
const LOGIN_FAILURE_WINDOW_MS = 15 * MINUTE_MS;
/** A counter store that does not answer within this is skipped (fail open, logged): limits must not take the API down. */
const STORE_TIMEOUT_MS = 500;
/** IPv6 clients are counted per /56, the smallest block a subscriber commonly gets (one host has many addresses). */
const IPV6_PREFIX = 56;

type BucketName = LimitClass | 'login-account';

interface Bucket {
  name: BucketName;
  limit: number;
  windowMs: number;
  store: Store;
  /** Pending or failed `init` (Redis scripts not loaded yet): retried before the next use. */
  init: Promise<void> | null;
  /** A store across the network (Redis) may hang: its calls get a deadline. The in-process one answers at once. */
  timed: boolean;
}

export interface LimiterOptions {
  log?: Logger;
  /** A store per bucket; each gets its own (express-rate-limit stores must not be shared). */
  makeStore?: (bucket: BucketName) => Store;
  onClose?: () => Promise<void>;
}

/**
 * Fixed windows per limit class (one minute), on express-rate-limit's stores so the same counters can live
 * in Redis (rate-limit-redis) and be shared by every process. Registration and login always count per IP;
 * other classes count per account when the caller is authenticated (so an agent behind a shared address
 * really gets its 120 trades a minute), and per IP for anonymous callers. IPv6 is keyed by /56 prefix.
 */
export class WindowRateLimiter implements RateLimiter {
  private readonly buckets = new Map<BucketName, Bucket>();
  private lastWarn = 0;

  constructor(
    limits: Record<LimitClass, number>,
    private readonly options: LimiterOptions = {},
  ) {
    const makeStore = options.makeStore ?? (() => new MemoryStore());
    const add = (name: BucketName, limit: number, windowMs: number) => {
      const bucket: Bucket = { name, limit, windowMs, store: makeStore(name), init: null, timed: options.makeStore !== undefined };
      bucket.init = this.initialise(bucket);
      this.buckets.set(name, bucket);
    };
    for (const cls of Object.keys(limits) as LimitClass[]) add(cls, limits[cls], MINUTE_MS);
    add('login-account', LOGIN_FAILURES_PER_ACCOUNT, LOGIN_FAILURE_WINDOW_MS);
  }

  async consume(cls: LimitClass, key: string, ip: string): Promise<void> {
    const perIp = cls === 'register' || cls === 'login' || key.startsWith('ip:');
    await this.hit(cls, perIp ? `ip:${ipKeyGenerator(ip || '0.0.0.0', IPV6_PREFIX)}` : key);
  }

  async beginLoginAttempt(email: string): Promise<void> {
    await this.hit('login-account', accountKey(email), 'Too many failed sign-ins for this account.');
  }

  async loginSucceeded(email: string): Promise<void> {
    const bucket = this.buckets.get('login-account')!;
    await this.guarded(bucket, () => bucket.store.decrement(accountKey(email)));
  }

  async close(): Promise<void> {
    for (const b of this.buckets.values()) await b.store.shutdown?.();
    await this.options.onClose?.();
  }

  private async hit(name: BucketName, key: string, message?: string): Promise<void> {
    const bucket = this.buckets.get(name)!;
    const info = await this.guarded(bucket, () => bucket.store.increment(key));
    if (!info || info.totalHits <= bucket.limit) return;
    const resetMs = info.resetTime ? info.resetTime.getTime() - Date.now() : bucket.windowMs;
    const retryAfter = Math.max(1, Math.ceil(resetMs / 1000));
    const windowS = bucket.windowMs / 1000;
    throw new AppError(
      'RATE_LIMITED',
      message ?? `Rate limit exceeded: ${bucket.limit} ${name} requests per ${windowS === 60 ? 'minute' : `${windowS} seconds`}.`,
      {
        hint: `Retry after ${retryAfter} seconds.`,
        headers: {
          'Retry-After': String(retryAfter),
          // draft-ietf-httpapi-ratelimit-headers: the policy (quota q per window w) and what remains (r) until reset (t).
          RateLimit: `"${name}";r=0;t=${retryAfter}`,
          'RateLimit-Policy': `"${name}";q=${bucket.limit};w=${windowS}`,
        },
      },
    );
  }

  /** Runs a store operation; a store that fails or hangs lets the request through and is re-initialised next time. */
  private async guarded<T>(bucket: Bucket, op: () => Promise<T> | T): Promise<T | undefined> {
    try {
      if (bucket.init) await (bucket.timed ? withTimeout(bucket.init) : bucket.init);
      bucket.init = null;
      return await (bucket.timed ? withTimeout(Promise.resolve(op())) : op());
    } catch (err) {
      bucket.init = this.initialise(bucket);
      this.warn('rate-limit store unavailable; request allowed', { bucket: bucket.name, err: err instanceof Error ? err.message : String(err) });
      return undefined;
    }
  }

  private initialise(bucket: Bucket): Promise<void> {
    const p = Promise.resolve(bucket.store.init?.({ windowMs: bucket.windowMs } as Options));
    p.catch(() => {}); // observed in guarded(); never an unhandled rejection
    return p;
  }

  private warn(msg: string, fields: Record<string, unknown>): void {
    const now = Date.now();
    if (now - this.lastWarn < 10_000) return;
    this.lastWarn = now;
    this.options.log?.warn(msg, fields);
  }
}

function accountKey(email: string): string {
  // Emails never sit in the counter store in clear.
  return `acct:${createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32)}`;
}

function withTimeout<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${STORE_TIMEOUT_MS} ms`)), STORE_TIMEOUT_MS);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

export function limitsFromConfig(config: Config): Record<LimitClass, number> {
  return {
    register: config.RATE_LIMIT_REGISTER_PER_MIN,
    login: config.RATE_LIMIT_REGISTER_PER_MIN * 2,
    api: config.RATE_LIMIT_API_PER_MIN,
    trade: config.RATE_LIMIT_TRADE_PER_MIN,
    sell: config.RATE_LIMIT_SELL_PER_MIN,
  };
}

/** In-process counters, or with REDIS_URL counters in Redis shared by every process (one prefix per bucket). */
export function createRateLimiter(config: Config, log: Logger): RateLimiter {
  const limits = limitsFromConfig(config);
  if (!config.REDIS_URL) return new WindowRateLimiter(limits, { log });
  const client = createClient({
    url: config.REDIS_URL,
    // Queue while (re)connecting, but never without bound: past this, commands fail at once (fail open).
    commandsQueueMaxLength: 10_000,
    socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5_000) },
  });
  let lastError = 0;
  client.on('error', (err: Error) => {
    if (Date.now() - lastError < 10_000) return;
    lastError = Date.now();
    log.warn('redis unavailable', { err: err.message });
  });
  client.connect().catch(() => {}); // errors arrive through the 'error' event; commands queue until ready
  return new WindowRateLimiter(limits, {
    log,
    makeStore: (bucket) =>
      new RedisStore({
        sendCommand: (...args: string[]) => client.sendCommand(args) as Promise<never>,
        prefix: `${config.REDIS_PREFIX}rl:${bucket}:`,
      }),
    onClose: async () => {
      // close() drains pending commands but would wait forever on a Redis that never answered: destroy that one.
      if (!client.isReady) return client.destroy();
      await client.close().catch(() => client.destroy());
    },
  });
}
