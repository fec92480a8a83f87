import type { Queryable } from '../../../src/db/database';
import { LeaderboardService } from '../../../src/domain/track-record/leaderboard-service';

/** A database whose board reads the test releases one by one; each read's top value is its number. */
class HeldReads implements Queryable {
  reads = 0;
  private readonly held: Array<{ release: () => void; fail: (e: Error) => void }> = [];
  async query<T>(): Promise<T[]> {
    this.reads += 1;
    const n = this.reads;
    await new Promise<void>((release, fail) => this.held.push({ release, fail }));
    return [{ user_id: 'u1', v: n, display_name: 'Trader', xp: 0, badges: [] }] as T[];
  }
  /** Lets the oldest held read answer (or fail). */
  release(err?: Error): void {
    const r = this.held.shift()!;
    if (err) r.fail(err);
    else r.release();
  }
  get waiting(): number {
    return this.held.length;
  }
}

const tick = () => new Promise((r) => setImmediate(r));
const query = { period: 'alltime' as const, metric: 'trades' as const, audience: 'everyone' as const, limit: 10, now: new Date('2026-11-23T12:00:00Z') };
const top = (b: { leaderboard: Array<{ value: number }> }) => b.leaderboard[0]!.value;

describe('LeaderboardService board cache', () => {
  let db: HeldReads;
  let clock: number;
  let boards: LeaderboardService;
  beforeEach(() => {
    db = new HeldReads();
    clock = 0;
    boards = new LeaderboardService(db, 1000, () => clock);
  });

  /** The first board, read and cached at clock 0. */
  async function first() {
    const b = boards.get(query);
    await tick();
    db.release();
    expect(top(await b)).toBe(1);
  }

  /** The next request gets no board before a read of its own answers, and then that read's board. */
  async function expectWaitsForRead(read: number) {
    let answered = false;
    const b = boards.get(query).then((x) => ((answered = true), x));
    await tick();
    expect(answered).toBe(false);
    db.release();
    expect(top(await b)).toBe(read);
  }

  test('when requests miss together, then they share one read', async () => {
    const a = boards.get(query);
    const b = boards.get(query);
    await tick();
    expect(db.reads).toBe(1);
    db.release();
    expect(await a).toBe(await b);
  });

  test('when a board is younger than cacheMs, then it is served without a read', async () => {
    await first();
    clock = 999;
    expect(top(await boards.get(query))).toBe(1);
    expect(db.reads).toBe(1);
  });

  test('when a board is past its time by less than cacheMs, then it is served at once while one read replaces it', async () => {
    await first();
    clock = 1500;
    expect(top(await boards.get(query))).toBe(1); // answered with the read still held
    expect(top(await boards.get(query))).toBe(1);
    await tick();
    expect(db.reads).toBe(2);
    db.release();
    await tick();
    expect(top(await boards.get(query))).toBe(2);
    expect(db.reads).toBe(2);
  });

  test('when several boards are past their time, then they are replaced one read at a time', async () => {
    const other = { ...query, audience: 'bots' as const };
    const a = boards.get(query);
    const b = boards.get(other);
    await tick();
    db.release();
    db.release();
    await Promise.all([a, b]);
    clock = 1500;
    await boards.get(query);
    await boards.get(other);
    await boards.get(query);
    await tick();
    expect(db.reads).toBe(3); // the second board's read waits for the first
    db.release();
    await tick();
    await tick();
    expect(db.reads).toBe(4);
    db.release();
    await tick();
    expect(top(await boards.get(query))).toBe(3);
    expect(top(await boards.get(other))).toBe(4);
    expect(db.reads).toBe(4);
  });

  test('when a board is older than twice cacheMs, then the request waits for a fresh read', async () => {
    await first();
    clock = 2001;
    await expectWaitsForRead(2);
  });

  test('when this process has written since, then the cached board is never served, however young', async () => {
    await first();
    boards.invalidate();
    await expectWaitsForRead(2);
  });

  test('when a write commits while a board is read, then that board answers its requests but is not reused', async () => {
    const b = boards.get(query);
    await tick();
    boards.invalidate();
    db.release();
    expect(top(await b)).toBe(1);
    const c = boards.get(query);
    await tick();
    db.release();
    expect(top(await c)).toBe(2);
  });

  test('when the replacing read fails, then the old board is served until it ages out and the next request reads again', async () => {
    await first();
    clock = 1500;
    expect(top(await boards.get(query))).toBe(1);
    await tick();
    db.release(new Error('database down'));
    await tick();
    expect(top(await boards.get(query))).toBe(1); // still within its second cacheMs; another read starts
    await tick();
    expect(db.waiting).toBe(1);
    clock = 2500;
    const late = boards.get(query);
    await tick();
    db.release(new Error('still down'));
    await expect(late).rejects.toThrow('still down');
  });
});
