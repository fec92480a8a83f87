import { createHash } from 'node:crypto';
import { MemoryStore, ipKeyGenerator, type Store, type Options } from 'express-rate-limit';
import { AppError } from '../errors/app-error';
import type { Config } from '../config';
import type { Logger } from '../logger';

/** A method's rate-limit class (declared on the method as `limit`); each has its own per-minute budget. */
export type LimitClass = 'register' | 'login' | 'api' | 'trade' | 'sell' | 'comment';

export interface RateLimiter {
  /** Counts one call of `cls` for `key` (`user:<id>` or `ip:<addr>`); throws RATE_LIMITED (429) when over the limit. */
  consume(cls: LimitClass, key: string, ip: string): Promise<void>;
  /**
   * Counts one conditional read answered from what the caller already holds (HTTP 304): such calls do not count
   * against `api`, but against their own, larger budget, so a flood of them cannot run handlers without end.
   */
  consumeRevalidation(key: string, ip: string): Promise<void>;
  /** What is left of `cls`'s budget for a caller now, counting nothing (whoami); `key` as for consume. */
  standing(cls: LimitClass, key: string, ip: string): Promise<LimitStanding>;
  /** Counts one sign-in attempt for an account (by email); throws RATE_LIMITED after too many recent failures. */
  beginLoginAttempt(email: string): Promise<void>;
  /** A successful sign-in is taken back out of the failure count. */
  loginSucceeded(email: string): Promise<void>;
  /** The shared counter store, for /ready (never fails readiness): no entry when counters are in-process only. */
  health?(): { redis?: 'ok' | 'degraded' };
  close(): Promise<void>;
}

/** A limit class's budget for one caller: calls per window, what is left of it, when the window ends (null: no call yet). */
export interface LimitStanding {
  limit: number;
  windowSeconds: number;
  remaining: number;
  resetsAt: Date | null;
  /** Whose counter it is: the account's (per account, or per replay run), or the address's. */
  countedBy: 'account' | 'ip';
}

const MINUTE_MS = 60_000;
/** Failed sign-ins per account: 10 per 15 minutes, whatever the address (a botnet cannot spread a guess list). */
export const LOGIN_FAILURES_PER_ACCOUNT = 10;
const LOGIN_FAILURE_WINDOW_MS = 15 * MINUTE_MS;
/** A counter store that does not answer within this is skipped for this call (counted in-process, logged). */
const STORE_TIMEOUT_MS = 500;
/** Consecutive store failures that open the circuit: from then on calls skip the store without waiting. */
const FAILURES_TO_OPEN = 3;
/** How long an open circuit waits before one call probes the store again. */
const PROBE_AFTER_MS = 5_000;
/** IPv6 clients are counted per /56, the smallest block a subscriber commonly gets (one host has many addresses). */
const IPV6_PREFIX = 56;

type BucketName = LimitClass | 'login-account' | 'revalidate' | 'browser';

/**
 * Key prefix of a person's browser session (invoke's limitKey): its `api` calls count on the `browser` bucket, so
 * address-bar loads, reloads and new tabs never meet the agents' 30 a minute (issue 53 item 2).
 */
export const BROWSER_KEY_PREFIX = 'browser:';

/** Revalidations (304 answers) allowed per minute, as a multiple of the api limit: a person's app never comes near. */
export const REVALIDATIONS_PER_API_CALL = 10;

interface Bucket {
  name: BucketName;
  limit: number;
  windowMs: number;
  store: Store;
  /** Pending or failed `init` (Redis scripts not loaded yet): retried before the next use. */
  init: Promise<void> | null;
  /** A store across the network (Redis) may hang: its calls get a deadline. The in-process one answers at once. */
  timed: boolean;
  /** For a store across the network: the in-process counters used while it is unreachable. */
  fallback?: Store;
}

export interface LimiterOptions {
  log?: Logger;
  /** A store per bucket; each gets its own (express-rate-limit stores must not be shared). */
  makeStore?: (bucket: BucketName) => Store;
  onClose?: () => Promise<void>;
  /** Circuit over the shared store (defaults: open after 3 failures in a row, probe every 5 s). */
  circuit?: CircuitOptions;
  /** Whether the shared store is connected now (for health: a store that is away reads degraded before any call). */
  storeReady?: () => boolean;
  /** `api` calls a minute of a person's browser session (keys starting `browser:`); without it they count on `api`. */
  browserApi?: number;
}

export interface CircuitOptions {
  failuresToOpen?: number;
  probeAfterMs?: number;
}

/**
 * A circuit breaker over the shared counter store. Closed, every call goes to the store (with its deadline);
 * after `failuresToOpen` failures in a row it opens and calls go to the in-process counters at once, so a
 * Redis that is down costs nothing per request; every `probeAfterMs` one call also tries the store, in the
 * background, and a success closes the circuit.
 */
class Circuit {
  private failures = 0;
  private openUntil = 0;
  private probing = false;

  constructor(
    private readonly failuresToOpen: number,
    private readonly probeAfterMs: number,
  ) {}

  get open(): boolean {
    return this.openUntil > 0;
  }

  /** Whether this call should try the store (closed), or probe it (open, and a probe is due). */
  tryStore(now: number): boolean {
    if (!this.open) return true;
    if (now < this.openUntil || this.probing) return false;
    this.probing = true;
    return true;
  }

  succeeded(): void {
    this.failures = 0;
    this.openUntil = 0;
    this.probing = false;
  }

  /** Records a failure; true when it opened (or kept open) the circuit. */
  failed(now: number): boolean {
    this.probing = false;
    this.failures += 1;
    if (this.open || this.failures >= this.failuresToOpen) this.openUntil = now + this.probeAfterMs;
    return this.open;
  }
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
  private readonly circuit: Circuit;

  constructor(
    limits: Record<LimitClass, number>,
    private readonly options: LimiterOptions = {},
  ) {
    this.circuit = new Circuit(options.circuit?.failuresToOpen ?? FAILURES_TO_OPEN, options.circuit?.probeAfterMs ?? PROBE_AFTER_MS);
    const makeStore = options.makeStore ?? (() => new MemoryStore());
    const add = (name: BucketName, limit: number, windowMs: number) => {
      const timed = options.makeStore !== undefined;
      const bucket: Bucket = { name, limit, windowMs, store: makeStore(name), init: null, timed };
      bucket.init = this.initialise(bucket);
      if (timed) {
        bucket.fallback = new MemoryStore();
        void bucket.fallback.init?.({ windowMs } as Options);
      }
      this.buckets.set(name, bucket);
    };
    for (const cls of Object.keys(limits) as LimitClass[]) add(cls, limits[cls], MINUTE_MS);
    add('login-account', LOGIN_FAILURES_PER_ACCOUNT, LOGIN_FAILURE_WINDOW_MS);
    add('revalidate', limits.api * REVALIDATIONS_PER_API_CALL, MINUTE_MS);
    if (options.browserApi !== undefined) add('browser', options.browserApi, MINUTE_MS);
  }

  async consume(cls: LimitClass, key: string, ip: string): Promise<void> {
    const perIp = cls === 'register' || cls === 'login' || key.startsWith('ip:');
    await this.hit(this.bucketOf(cls, key), perIp ? `ip:${ipKeyGenerator(ip || '0.0.0.0', IPV6_PREFIX)}` : key);
  }

  /** A person's browser session has a bucket of its own for `api` only; every other class stays the account's. */
  private bucketOf(cls: LimitClass, key: string): BucketName {
    return cls === 'api' && key.startsWith(BROWSER_KEY_PREFIX) && this.buckets.has('browser') ? 'browser' : cls;
  }

  async standing(cls: LimitClass, key: string, ip: string): Promise<LimitStanding> {
    // The counter consume() would count on (the same keying), read without counting.
    const perIp = cls === 'register' || cls === 'login' || key.startsWith('ip:');
    const bucket = this.buckets.get(this.bucketOf(cls, key))!;
    const info = await this.guarded(bucket, (store) => store.get?.(perIp ? `ip:${ipKeyGenerator(ip || '0.0.0.0', IPV6_PREFIX)}` : key));
    const expired = !info?.resetTime || info.resetTime.getTime() <= Date.now();
    const used = info && !expired ? info.totalHits : 0;
    return {
      limit: bucket.limit,
      windowSeconds: bucket.windowMs / 1000,
      remaining: Math.max(0, bucket.limit - used),
      resetsAt: expired ? null : info.resetTime!,
      countedBy: perIp ? 'ip' : 'account',
    };
  }

  async consumeRevalidation(key: string, ip: string): Promise<void> {
    await this.hit('revalidate', key.startsWith('ip:') ? `ip:${ipKeyGenerator(ip || '0.0.0.0', IPV6_PREFIX)}` : key);
  }

  async beginLoginAttempt(email: string): Promise<void> {
    await this.hit('login-account', accountKey(email), 'Too many failed sign-ins for this account.');
  }

  async loginSucceeded(email: string): Promise<void> {
    const bucket = this.buckets.get('login-account')!;
    await this.guarded(bucket, (store) => store.decrement(accountKey(email)));
  }

  health(): { redis?: 'ok' | 'degraded' } {
    if (!this.options.makeStore) return {};
    const ready = this.options.storeReady?.() ?? true;
    return { redis: this.circuit.open || !ready ? 'degraded' : 'ok' };
  }

  async close(): Promise<void> {
    for (const b of this.buckets.values()) {
      await b.store.shutdown?.();
      await b.fallback?.shutdown?.();
    }
    await this.options.onClose?.();
  }

  private async hit(name: BucketName, key: string, message?: string): Promise<void> {
    const bucket = this.buckets.get(name)!;
    const info = await this.guarded(bucket, (store) => store.increment(key));
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

  /**
   * Runs a store operation. A shared store that fails, hangs or sits behind an open circuit is replaced for
   * this call by the in-process counters: limits hold per process while Redis is away, and it is
   * re-initialised before its next use.
   */
  private async guarded<T>(bucket: Bucket, op: (store: Store) => Promise<T> | T): Promise<T | undefined> {
    if (!bucket.timed) return op(bucket.store);
    const fallback = bucket.fallback!;
    const now = Date.now();
    if (this.circuit.open) {
      // The probe runs beside the call, which is answered from this process's counters: nobody waits on it.
      if (this.circuit.tryStore(now)) void this.viaStore(bucket, op).catch(() => {});
      return op(fallback);
    }
    try {
      return await this.viaStore(bucket, op);
    } catch {
      return op(fallback);
    }
  }

  /** One call to the shared store under its deadline; its outcome drives the circuit. */
  private async viaStore<T>(bucket: Bucket, op: (store: Store) => Promise<T> | T): Promise<T> {
    try {
      if (bucket.init) await withTimeout(bucket.init);
      bucket.init = null;
      const out = await withTimeout(Promise.resolve(op(bucket.store)));
      this.circuit.succeeded();
      return out;
    } catch (err) {
      bucket.init = this.initialise(bucket);
      const open = this.circuit.failed(Date.now());
      this.warn(open ? 'rate-limit store unavailable; counting in this process until it answers again' : 'rate-limit store failed; counted in this process', {
        bucket: bucket.name,
        err: err instanceof Error ? err.message : String(err),
      });
      throw err;
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

/**
 * Each class's budget a minute: the setting it comes from (sign-ins get a multiple of it) and whom it counts. The limiter
 * and docs/rate-limits.md (src/documents/rate-limits-reference.ts) both read it, so the page cannot tell another story.
 */
export const LIMIT_CLASSES: Record<LimitClass, { setting: keyof Config & `RATE_LIMIT_${string}`; times?: number; countedPer: string }> = {
  register: { setting: 'RATE_LIMIT_REGISTER_PER_MIN', countedPer: 'IP' },
  login: { setting: 'RATE_LIMIT_REGISTER_PER_MIN', times: 2, countedPer: 'IP; account (by email)' },
  trade: { setting: 'RATE_LIMIT_TRADE_PER_MIN', countedPer: 'account' },
  sell: { setting: 'RATE_LIMIT_SELL_PER_MIN', countedPer: 'account' },
  comment: { setting: 'RATE_LIMIT_COMMENT_PER_MIN', countedPer: 'account' },
  api: { setting: 'RATE_LIMIT_API_PER_MIN', countedPer: 'account when authenticated, else IP' },
};

export function limitsFromConfig(config: Config): Record<LimitClass, number> {
  const limits = {} as Record<LimitClass, number>;
  for (const [cls, c] of Object.entries(LIMIT_CLASSES) as Array<[LimitClass, (typeof LIMIT_CLASSES)[LimitClass]]>)
    limits[cls] = (config[c.setting] as number) * (c.times ?? 1);
  return limits;
}

/** Which budget a limiter counts: its limits a minute and the key space of its counters in Redis (`rl:` for live calls). */
export interface LimiterBudget {
  limits: Record<LimitClass, number>;
  redisSpace: string;
  /** A person's browser budget of `api` calls a minute (the live budget only: a run's key is never a session). */
  browserApi?: number;
}

/** The settings' limits, and a person's browser budget: the `api` limit times WEB_RATE_LIMIT_TIMES. */
export function liveBudget(config: Config): LimiterBudget {
  const limits = limitsFromConfig(config);
  return { limits, redisSpace: 'rl', browserApi: limits.api * config.WEB_RATE_LIMIT_TIMES };
}

/**
 * In-process counters, or with REDIS_URL counters in Redis shared by every process (one prefix per bucket). The live
 * budget (the settings' limits) unless another is given (a replay run's: src/limits/run-budget.ts).
 */
export function createRateLimiter(config: Config, log: Logger, circuit?: CircuitOptions, budget: LimiterBudget = liveBudget(config)): RateLimiter {
  const { limits, browserApi } = budget;
  if (!config.REDIS_URL) return new WindowRateLimiter(limits, { log, browserApi });
  // Loaded only when Redis is configured: the client and its modules are a third of a start's module loading.
  const { createClient } = require('redis') as typeof import('redis');
  const { RedisStore } = require('rate-limit-redis') as typeof import('rate-limit-redis');
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
    circuit,
    browserApi,
    storeReady: () => client.isReady,
    makeStore: (bucket) =>
      new RedisStore({
        sendCommand: (...args: string[]) => client.sendCommand(args) as Promise<never>,
        prefix: `${config.REDIS_PREFIX}${budget.redisSpace}:${bucket}:`,
      }),
    onClose: async () => {
      // close() drains pending commands but would wait forever on a Redis that never answered: destroy that one.
      if (!client.isReady) return client.destroy();
      await client.close().catch(() => client.destroy());
    },
  });
}
