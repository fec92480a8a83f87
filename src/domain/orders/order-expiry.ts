import type { Clock } from '../../clock';
import type { Logger } from '../../logger';
import type { OrderService } from './order-service';

/** How often every process looks for GTD orders past expiresAt: expiry lands within this (plus the close itself). */
export const EXPIRY_TICK_MS = 250;

/**
 * Expires GTD orders within a second of expiresAt. Each tick is one probe of the partial index orders_open_expiring
 * (nothing due: an empty index range). Every process of a cluster runs it; OrderService.close guards each expiry
 * by the order's open state under its row lock, so two processes never release a reservation twice.
 */
export class OrderExpiry {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly orders: OrderService,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly tickMs = EXPIRY_TICK_MS,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.tickMs);
    this.timer.unref();
  }

  /** One pass now, unless one is still running (a slow pass is never stacked). */
  tick(): void {
    if (this.running) return;
    this.running = this.orders
      .expireDue(this.clock.now())
      .catch((err) => this.log.error('order expiry failed', { error: err instanceof Error ? err.message : String(err) }))
      .finally(() => {
        this.running = null;
      });
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
