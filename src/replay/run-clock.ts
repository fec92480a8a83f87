import type { Clock } from '../clock';

/**
 * A replay run's clock. Step mode: it stands still until advance_replay moves it. Speed mode: it runs `speed` times the
 * wall clock from the run's start. Either way it never passes the window's end, and an ended run's clock stays there.
 */
export class RunClock implements Clock {
  private simNowMs: number;

  constructor(
    private readonly mode: { kind: 'step' } | { kind: 'speed'; speed: number },
    readonly startMs: number,
    readonly endMs: number,
    simNowMs: number,
    private readonly wallStartedMs: number,
    private readonly wall: Clock,
    private frozen = false,
  ) {
    this.simNowMs = simNowMs;
  }

  /** Simulated seconds per wall second; null for a stepped run. */
  get speed(): number | null {
    return this.mode.kind === 'speed' ? this.mode.speed : null;
  }

  /** The run has ended: its clock stays at the window's end. */
  get ended(): boolean {
    return this.frozen;
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  nowMs(): number {
    if (this.mode.kind === 'step' || this.frozen) return this.simNowMs;
    return Math.min(this.endMs, Math.floor(this.startMs + this.mode.speed * (this.wall.now().getTime() - this.wallStartedMs)));
  }

  /** Step mode: the clock as stored (advance_replay, or another process's advance read from the run's row). */
  set(simNowMs: number): void {
    this.simNowMs = Math.min(this.endMs, Math.max(this.startMs, simNowMs));
  }

  /** Stops the clock at the window's end (end_replay). */
  freeze(): void {
    this.simNowMs = this.endMs;
    this.frozen = true;
  }
}
