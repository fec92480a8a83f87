import { PriceCoalescer, type Timers } from '../../src/market-data/price-coalescer';

/** Timers on a clock the test steps: a timer fires when the clock passes its time. */
class SteppedTimers implements Timers {
  t = 0;
  private readonly due = new Map<number, { at: number; fn: () => void }>();
  private next = 0;
  set(fn: () => void, ms: number): number {
    this.next += 1;
    this.due.set(this.next, { at: this.t + ms, fn });
    return this.next;
  }
  clear(handle: unknown): void {
    this.due.delete(handle as number);
  }
  /** Moves the clock by `ms`, firing each timer at its time, in order. */
  step(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const [id, first] = [...this.due.entries()].sort((a, b) => a[1].at - b[1].at)[0] ?? [];
      if (!first || first.at > end) break;
      this.due.delete(id!);
      this.t = first.at;
      first.fn();
    }
    this.t = end;
  }
  get pending(): number {
    return this.due.size;
  }
}

interface Tick {
  tokenId: string;
  price: number;
  at: Date;
}

describe('price coalescer (one tick per token per window)', () => {
  let timers: SteppedTimers;
  let sent: Array<Tick & { sentAt: number }>;
  let c: PriceCoalescer<Tick>;
  beforeEach(() => {
    timers = new SteppedTimers();
    sent = [];
    c = new PriceCoalescer<Tick>((t) => sent.push({ ...t, sentAt: timers.t }), 250, timers);
  });
  const tick = (tokenId: string, price: number, at = timers.t): Tick => ({ tokenId, price, at: new Date(1_800_000_000_000 + at) });

  test('when a token is quiet, then its first tick goes out at once', () => {
    c.offer(tick('a', 0.5));
    expect(sent.map((s) => [s.price, s.sentAt])).toEqual([[0.5, 0]]);
  });

  test('when 50 ticks of one token arrive within 200 ms, then the first goes out at once and the last when the window ends, and nothing after', () => {
    for (let i = 0; i < 50; i++) {
      c.offer(tick('a', 0.3 + i / 100));
      timers.step(4);
    }
    timers.step(1000);
    expect(sent.map((s) => [s.price, s.sentAt])).toEqual([
      [0.3, 0],
      [0.79, 250],
    ]);
    // The last tick keeps its own time: when the venue quoted it, not when it was sent.
    expect(sent[1]!.at.getTime() - 1_800_000_000_000).toBe(196);
    expect(timers.pending).toBe(0);
  });

  test('when ticks keep coming, then one goes out every window, each the latest of its window', () => {
    for (let ms = 0; ms < 1000; ms += 10) {
      c.offer(tick('a', ms / 10000));
      timers.step(10);
    }
    timers.step(1000);
    const gaps = sent.slice(1).map((s, i) => s.sentAt - sent[i]!.sentAt);
    expect(gaps.every((g) => g >= 250)).toBe(true);
    expect(sent.length).toBeLessThanOrEqual(5);
    expect(sent[sent.length - 1]!.price).toBe(0.099);
  });

  test('when two tokens tick together, then each is paced on its own', () => {
    c.offer(tick('a', 0.1));
    c.offer(tick('b', 0.2));
    c.offer(tick('a', 0.11));
    c.offer(tick('b', 0.21));
    expect(sent.map((s) => s.price)).toEqual([0.1, 0.2]);
    timers.step(250);
    expect(sent.map((s) => s.price)).toEqual([0.1, 0.2, 0.11, 0.21]);
  });

  test('when a tick is older than one already sent or waiting, then it is dropped, even after the window', () => {
    c.offer(tick('a', 0.5, 100));
    c.offer(tick('a', 0.6, 200));
    c.offer(tick('a', 0.4, 150)); // older than the waiting one
    timers.step(250);
    expect(sent.map((s) => s.price)).toEqual([0.5, 0.6]);
    timers.step(1000);
    c.offer(tick('a', 0.3, 50)); // older than the last sent, long after
    c.offer(tick('a', 0.7, 200)); // the same time as the last sent: a correction, sent
    expect(sent.map((s) => s.price)).toEqual([0.5, 0.6, 0.7]);
  });

  test('when a token is forgotten, then its waiting tick is dropped and its timer cleared', () => {
    c.offer(tick('a', 0.5));
    c.offer(tick('a', 0.6));
    c.forget('a');
    expect(timers.pending).toBe(0);
    timers.step(1000);
    c.offer(tick('a', 0.1, -10)); // its memory went too
    expect(sent.map((s) => s.price)).toEqual([0.5, 0.1]);
  });
});
