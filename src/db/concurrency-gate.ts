/**
 * At most `limit` callers inside at once; the others wait their turn, first come first served. A
 * CPU-bound read (search) run on every pooled connection at once puts that many PostgreSQL backends on
 * the run queue beside the service itself, and on a machine of few cores every one of them waits its
 * turn for a CPU: the tail of every request grows. Queuing the surplus here costs a promise each.
 */
export class ConcurrencyGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`ConcurrencyGate limit must be a positive integer, got ${limit}`);
  }

  /** Callers inside now and waiting now (for tests and diagnostics). */
  get load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active < this.limit) this.active += 1;
    // A leaving caller hands its place straight to the first waiter, so `active` never drops in between.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}
