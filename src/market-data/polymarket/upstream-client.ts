import type { Logger } from '../../logger';
import { FeedError } from '../feed';
import { CircuitBreaker } from './circuit-breaker';

export interface UpstreamOptions {
  /** Per attempt, covering the whole response body. */
  timeoutMs: number;
  /** Attempts after the first, for timeouts, network errors, 429 and 5xx only. */
  retries: number;
  backoffMs: number;
  breakerThreshold: number;
  breakerCooldownMs: number;
  now: () => number;
}

export const DEFAULT_UPSTREAM: Omit<UpstreamOptions, 'now'> = {
  timeoutMs: 4000,
  retries: 2,
  backoffMs: 250,
  breakerThreshold: 5,
  breakerCooldownMs: 30_000,
};

class Retryable extends Error {}

/**
 * GETs JSON from one upstream host with a timeout per attempt, bounded retries with exponential
 * backoff and jitter, and a circuit breaker. A 4xx (other than 408/429) answers null; anything else that is not a 2xx JSON
 * body ends as FeedError('unavailable'). Messages name the path, never the response body.
 */
export class UpstreamClient {
  readonly breaker: CircuitBreaker;
  requests = 0;

  constructor(
    readonly name: string,
    private readonly baseUrl: string,
    private readonly opts: UpstreamOptions,
    private readonly log: Logger,
  ) {
    this.breaker = new CircuitBreaker({ threshold: opts.breakerThreshold, cooldownMs: opts.breakerCooldownMs, now: opts.now });
  }

  /** The longest one getJson can take: every attempt timing out, plus the longest backoffs between them. */
  get deadlineMs(): number {
    let ms = (this.opts.retries + 1) * this.opts.timeoutMs;
    for (let attempt = 1; attempt <= this.opts.retries; attempt++) ms += this.opts.backoffMs * 2 ** (attempt - 1) * 1.5;
    return ms;
  }

  async getJson(path: string, query: Record<string, string | number | boolean | undefined> = {}): Promise<unknown | null> {
    if (!this.breaker.allow()) throw new FeedError('unavailable', `${this.name} is unavailable (circuit open after repeated failures).`);
    const url = new URL(path, this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    let lastError = 'no attempt';
    for (let attempt = 0; attempt <= this.opts.retries; attempt++) {
      if (attempt > 0) await sleep(this.opts.backoffMs * 2 ** (attempt - 1) * (0.5 + Math.random()));
      try {
        const body = await this.attempt(url);
        this.breaker.success();
        return body;
      } catch (err) {
        lastError = err instanceof Error ? err.message : String(err);
        if (!(err instanceof Retryable)) break;
      }
    }
    this.breaker.failure();
    this.log.warn('upstream request failed', { upstream: this.name, path: url.pathname, error: lastError, breaker: this.breaker.state });
    throw new FeedError('unavailable', `${this.name} did not answer ${url.pathname} (${lastError}).`);
  }

  private async attempt(url: URL): Promise<unknown | null> {
    this.requests += 1;
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        headers: { accept: 'application/json', 'user-agent': 'paper-trading-mirror/1.0' },
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      const timedOut = (err as Error)?.name === 'TimeoutError' || (err as Error)?.name === 'AbortError';
      throw new Retryable(timedOut ? `timeout after ${this.opts.timeoutMs} ms` : 'network error');
    }
    if (res.status === 408 || res.status === 429 || res.status >= 500) throw new Retryable(`HTTP ${res.status}`);
    // The venue answered but has nothing for this request (404, or 400 for an id it does not know).
    if (res.status >= 400) return null;
    if (res.status < 200 || res.status >= 300) throw new Error(`HTTP ${res.status}`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error('malformed JSON');
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
