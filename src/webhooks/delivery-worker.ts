import type { Clock } from '../clock';
import type { Logger } from '../logger';
import type { EventFeed } from '../domain/events/event-feed';
import type { ClaimedDelivery, WebhookDeliveries } from '../domain/webhooks/webhook-deliveries';
import { guardedPost, OutboundRefused, type Resolve } from '../outbound/guarded-post';
import { signedHeaders, webhookBody, webhookMessageId } from './signing';

export interface DeliveryWorkerOptions {
  /** Seconds between a delivery's attempts (config WEBHOOK_RETRY_SCHEDULE_S). */
  schedule: readonly number[];
  timeoutMs: number;
  allowPrivate: boolean;
  /** Name resolution (default the system's); tests stub it. */
  resolve?: Resolve;
  /** How often due retries and missed events are looked for (default a second; tests lengthen it to isolate wakes). */
  pollMs?: number;
  /** Deliveries in flight at once in this process (each to a different endpoint). */
  concurrency?: number;
}

/** How long past an attempt's own timeout its lease lasts: room to record the outcome before another process may retry. */
const LEASE_MARGIN_MS = 30_000;

/**
 * Sends webhook deliveries from this process: woken when an account's events commit (EventFeed, in any process of
 * the cluster) and every `pollMs` for due retries and wakes that were lost. It queues new events for the endpoints
 * that are behind, claims due deliveries (a lease, so no other process sends them meanwhile), signs them the
 * Standard Webhooks way, POSTs them through the SSRF guard, and records each attempt.
 */
export class DeliveryWorker {
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly users = new Set<string>();
  private sweep = true;
  private pumping = false;
  private again = false;
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  /** Until start() (and after stop()), kicks do nothing: a test driving the worker by hand with runOnce() owns it. */
  private stopped = true;

  constructor(
    private readonly deliveries: WebhookDeliveries,
    private readonly feed: EventFeed,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly opts: DeliveryWorkerOptions,
  ) {
    this.pollMs = opts.pollMs ?? 1000;
    this.concurrency = opts.concurrency ?? 8;
  }

  /** Starts listening and polling (background work; tests that drive it by hand call runOnce instead). */
  start(): void {
    if (this.unsubscribe) return;
    this.stopped = false;
    this.unsubscribe = this.feed.subscribeAll((userId, seq) => {
      if (seq === null) this.sweep = true;
      else this.users.add(userId);
      this.kick();
    });
    const tick = () => {
      this.sweep = true;
      this.kick();
      this.timer = setTimeout(tick, this.pollMs);
      this.timer.unref();
    };
    tick();
  }

  /** Stops waking and polling and waits for the attempts in flight to be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.pumping || this.inFlight.size > 0) {
      await Promise.all([...this.inFlight]);
      await new Promise((r) => setImmediate(r));
    }
  }

  /** A nudge: something may be due (a replay, a wake). */
  kick(): void {
    if (this.stopped) return;
    this.pump().catch((err) => this.log.error('webhook delivery pass failed', { error: err instanceof Error ? err.message : String(err) }));
  }

  /**
   * For tests and tools driving it by hand: queues every endpoint's new events and sends what is due, until nothing
   * due is left (retries scheduled for later stay scheduled).
   */
  async runOnce(): Promise<void> {
    await this.deliveries.enqueueAll(this.clock.now());
    for (;;) {
      const now = this.clock.now();
      const claimed = await this.deliveries.claim(now, this.concurrency, new Date(now.getTime() + this.opts.timeoutMs + LEASE_MARGIN_MS));
      if (claimed.length === 0) return;
      await Promise.all(claimed.map((c) => this.send(c)));
    }
  }

  private async pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        const now = this.clock.now();
        if (this.sweep) {
          this.sweep = false;
          this.users.clear();
          await this.deliveries.enqueueAll(now);
        } else {
          const users = [...this.users];
          this.users.clear();
          for (const u of users) await this.deliveries.enqueueFor(u, now);
        }
        while (!this.stopped && this.inFlight.size < this.concurrency) {
          const at = this.clock.now();
          const claimed = await this.deliveries.claim(
            at,
            this.concurrency - this.inFlight.size,
            new Date(at.getTime() + this.opts.timeoutMs + LEASE_MARGIN_MS),
          );
          if (claimed.length === 0) break;
          for (const c of claimed) {
            const p: Promise<void> = this.send(c).finally(() => {
              this.inFlight.delete(p);
              // Its endpoint's next event may now be due, and a slot is free.
              this.kick();
            });
            this.inFlight.add(p);
          }
        }
      } while (this.again && !this.stopped);
    } finally {
      this.pumping = false;
    }
  }

  /** One attempt of one delivery, recorded whatever happens (a recording that fails leaves the lease to run out). */
  private async send(c: ClaimedDelivery): Promise<void> {
    const body = webhookBody(c);
    const at = this.clock.now();
    const headers = signedHeaders(c.secrets, webhookMessageId(c.endpointId, c.seq), at, body);
    const started = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      const res = await guardedPost(
        c.url,
        body,
        { ...headers, 'user-agent': 'paper-trading-webhooks/1' },
        {
          allowPrivate: this.opts.allowPrivate,
          timeoutMs: this.opts.timeoutMs,
          resolve: this.opts.resolve,
        },
      );
      status = res.status;
    } catch (err) {
      error = err instanceof OutboundRefused ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);
    }
    const durationMs = performance.now() - started;
    try {
      const result = await this.deliveries.record(c, { at, status, error, durationMs }, this.opts.schedule, this.clock.now());
      this.log.debug('webhook attempt', { delivery: c.id, endpoint: c.endpointId, seq: c.seq, attempt: c.attempt, status, error, result });
    } catch (err) {
      this.log.error('recording a webhook attempt failed', { delivery: c.id, error: err instanceof Error ? err.message : String(err) });
    }
  }
}
