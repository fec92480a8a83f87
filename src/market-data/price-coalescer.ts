/** The price streams' pace: at most one tick per token in this many milliseconds. */
export const PRICE_TICK_INTERVAL_MS = 250;

/** Where the coalescer's windows are timed: real timers in the service, a stepped clock in tests. */
export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Paces price ticks (PriceTick) per token: the first tick after a quiet spell goes out at once and opens a window of `intervalMs`;
 * ticks arriving inside the window replace one another (the latest wins) and the one left goes out when the window
 * ends, opening the next. So a burst reaches subscribers as its first price and its last, never losing the end of it.
 * A tick older (by its `at`, the venue's time) than one already sent or waiting is not news and is dropped, whichever
 * source it came from (the sync's listing can be older than a live quote read meanwhile).
 */
export class PriceCoalescer<T extends { tokenId: string; at: Date }> {
  private readonly windows = new Map<string, { timer: unknown; pending?: T }>();
  /** `at` of the newest tick let through per token, kept until forget(). */
  private readonly sentAt = new Map<string, number>();

  constructor(
    private readonly deliver: (tick: T) => void,
    private readonly intervalMs = PRICE_TICK_INTERVAL_MS,
    private readonly timers: Timers = realTimers,
  ) {}

  offer(tick: T): void {
    const at = tick.at.getTime();
    const w = this.windows.get(tick.tokenId);
    if (at < (w?.pending?.at.getTime() ?? this.sentAt.get(tick.tokenId) ?? -Infinity)) return;
    if (w) w.pending = tick;
    else this.send(tick);
  }

  /** Nothing more is wanted of this token (its last subscriber left): its window and memory go. */
  forget(tokenId: string): void {
    const w = this.windows.get(tokenId);
    if (w) this.timers.clear(w.timer);
    this.windows.delete(tokenId);
    this.sentAt.delete(tokenId);
  }

  /** Drops every window (shutdown). */
  clear(): void {
    for (const id of [...this.windows.keys()]) this.forget(id);
    this.sentAt.clear();
  }

  private send(tick: T): void {
    const id = tick.tokenId;
    this.sentAt.set(id, tick.at.getTime());
    this.windows.set(id, { timer: this.timers.set(() => this.windowEnded(id), this.intervalMs) });
    this.deliver(tick);
  }

  private windowEnded(tokenId: string): void {
    const w = this.windows.get(tokenId);
    this.windows.delete(tokenId);
    if (w?.pending) this.send(w.pending);
  }
}
