/**
 * Stops calling an upstream that keeps failing: after `threshold` consecutive failures it opens for
 * `cooldownMs` (calls fail fast), then lets one trial call through (half-open); a success closes it.
 */
export class CircuitBreaker {
  private failures = 0;
  private openedAt: number | null = null;
  private trialInFlight = false;

  constructor(private readonly opts: { threshold: number; cooldownMs: number; now: () => number }) {}

  get state(): 'closed' | 'open' | 'half-open' {
    if (this.openedAt === null) return 'closed';
    return this.opts.now() - this.openedAt >= this.opts.cooldownMs ? 'half-open' : 'open';
  }

  /** Whether a call may go out now; in half-open state only one trial at a time. */
  allow(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.trialInFlight) return false;
    this.trialInFlight = true;
    return true;
  }

  success(): void {
    this.failures = 0;
    this.openedAt = null;
    this.trialInFlight = false;
  }

  failure(): void {
    this.trialInFlight = false;
    this.failures += 1;
    if (this.openedAt !== null || this.failures >= this.opts.threshold) this.openedAt = this.opts.now();
  }
}
