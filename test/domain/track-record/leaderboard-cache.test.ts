import type { Queryable } from '../../../src/db/database';
import { LeaderboardService } from '../../../src/domain/track-record/leaderboard-service';

/**
 * A database whose board reads the test releases one by one; each read's top value is its number. Commit
 * watermark checks answer at once with `mark`, which a test moves to stand for another process's commit.
 */
class HeldReads implements Queryable {
  notify(): void {
    throw new Error('a read announces nothing');
  }
  reads = 0;
  checks = 0;
  mark = 'm1';
  watermarkDown = false;
  private readonly held: Array<{ release: () => void; fail: (e: Error) => void }> = [];
  async query<T>(sql: string): Promise<T[]> {
    if (sql.includes('pg_current_snapshot')) {
      this.checks += 1;
      if (this.watermarkDown) throw new Error('database down');
      return [{ mark: this.mark }] as T[];
    }
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
    boards = new LeaderboardService(db, { cacheMs: 1000, clock: () => clock });
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

  test('when another process committed and a board is past its time by less than cacheMs, then it is served at once while one read replaces it', async () => {
    await first();
    db.mark = 'm2';
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

  test('when another process committed and several boards are past their time, then they are replaced one read at a time', async () => {
    const other = { ...query, audience: 'bots' as const };
    const a = boards.get(query);
    const b = boards.get(other);
    await tick();
    db.release();
    db.release();
    await Promise.all([a, b]);
    db.mark = 'm2';
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

  test('when another process committed and a board is older than twice cacheMs, then the request waits for a fresh read', async () => {
    await first();
    db.mark = 'm2';
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
    db.mark = 'm2';
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

  test('when nothing has committed since a board was read, then past its time it is renewed by a watermark check alone', async () => {
    await first();
    clock = 1500;
    expect(top(await boards.get(query))).toBe(1);
    await tick();
    await tick();
    expect(db.checks).toBe(2); // one before the first read, one to renew it
    expect(db.reads).toBe(1);
    // Renewed from the check's moment: fresh until 2500 with no further check.
    clock = 2499;
    expect(top(await boards.get(query))).toBe(1);
    expect(db.checks).toBe(2);
    expect(db.reads).toBe(1);
  });

  test('when nothing has committed and a board is older than twice cacheMs, then the request is answered after a check, without a read', async () => {
    await first();
    clock = 5000;
    expect(top(await boards.get(query))).toBe(1);
    expect(db.checks).toBe(2);
    expect(db.reads).toBe(1);
    expect(db.waiting).toBe(0);
  });

  test('when a renewed board is past its time again and another process has committed since, then it is read again', async () => {
    await first();
    clock = 1500;
    await boards.get(query);
    await tick();
    await tick();
    db.mark = 'm2';
    clock = 2600;
    expect(top(await boards.get(query))).toBe(1); // served while the read replaces it
    await tick();
    await tick();
    expect(db.reads).toBe(2);
    db.release();
    await tick();
    expect(top(await boards.get(query))).toBe(2);
  });

  test('when the watermark check fails, then a board past its time is served until it ages out, and then the request fails', async () => {
    await first();
    db.watermarkDown = true;
    clock = 1500;
    expect(top(await boards.get(query))).toBe(1);
    await tick();
    expect(db.reads).toBe(1);
    clock = 2500;
    await expect(boards.get(query)).rejects.toThrow('database down');
  });
});

/** Board reads answer one row (trader u1, value 5); a caller's rank read answers `ranks[user]`, at once. Counts both. */
class Callers implements Queryable {
  notify(): void {
    throw new Error('a read announces nothing');
  }
  boardReads = 0;
  rankReads: string[] = [];
  ranks: Record<string, number | undefined> = { u2: 7, u3: 7 };
  rankDown = false;
  async query<T>(sql: string, params?: unknown[]): Promise<T[]> {
    if (sql.includes('pg_current_snapshot')) return [{ mark: 'm1' }] as T[];
    if (sql.includes('my_rank')) {
      if (this.rankDown) throw new Error('rank down');
      const user = params!.find((p) => typeof p === 'string' && p.startsWith('u')) as string;
      this.rankReads.push(user);
      const r = this.ranks[user];
      return (r === undefined ? [] : [{ my_rank: BigInt(r) }]) as T[];
    }
    this.boardReads += 1;
    return [{ user_id: 'u1', v: 5, display_name: 'Trader', xp: 0, badges: [] }] as T[];
  }
}

describe('LeaderboardService for signed-in callers', () => {
  let db: Callers;
  let clock: number;
  let boards: LeaderboardService;
  beforeEach(() => {
    db = new Callers();
    clock = 0;
    boards = new LeaderboardService(db, { cacheMs: 1000, clock: () => clock });
  });

  test('when several callers and anonymous visitors ask for a board, then it is read once and each caller gets their own rank on it', async () => {
    const [anonymous, u2, u3, nobody] = await Promise.all([
      boards.get(query),
      boards.get({ ...query, userId: 'u2' }),
      boards.get({ ...query, userId: 'u3' }),
      boards.get({ ...query, userId: 'u4' }),
    ]);
    expect(db.boardReads).toBe(1);
    expect(db.rankReads.sort()).toEqual(['u2', 'u3', 'u4']);
    expect(anonymous.currentUserRank).toBeNull();
    expect(anonymous.leaderboard[0]!.isCurrentUser).toBeUndefined();
    expect([u2.currentUserRank, u3.currentUserRank, nobody.currentUserRank]).toEqual([7, 7, null]);
    for (const b of [u2, u3, nobody]) expect(b.leaderboard.map((r) => r.isCurrentUser)).toEqual([false]);
    // The shared board is not changed by a caller's view of it.
    expect((await boards.get(query)).leaderboard[0]!.isCurrentUser).toBeUndefined();
  });

  test("when the caller is on the board's rows, then their rank is their row's, whatever their rank read said", async () => {
    db.ranks.u1 = 3; // as if read at another moment than the board
    const view = await boards.get({ ...query, userId: 'u1' });
    expect(view.currentUserRank).toBe(1);
    expect(view.leaderboard.map((r) => r.isCurrentUser)).toEqual([true]);
  });

  test('when a caller asks again within cacheMs, then neither the board nor their rank is read again, and the answer is the same object (its JSON made once)', async () => {
    const first = await boards.get({ ...query, userId: 'u2' });
    clock = 999;
    const again = await boards.get({ ...query, userId: 'u2' });
    expect(again).toBe(first);
    expect(Object.isFrozen(again)).toBe(true);
    expect(db.boardReads).toBe(1);
    expect(db.rankReads).toEqual(['u2']);
  });

  test("when this process has written since, then the caller's rank is read again before answering", async () => {
    await boards.get({ ...query, userId: 'u2' });
    boards.invalidate();
    db.ranks.u2 = 2;
    const view = await boards.get({ ...query, userId: 'u2' });
    expect(view.currentUserRank).toBe(2);
    expect(db.rankReads).toEqual(['u2', 'u2']);
    expect(db.boardReads).toBe(2);
  });

  test("when a caller's rank cannot be read, then their request fails with that error, and the shared board is still served", async () => {
    db.rankDown = true;
    await expect(boards.get({ ...query, userId: 'u2' })).rejects.toThrow('rank down');
    expect((await boards.get(query)).leaderboard).toHaveLength(1);
  });
});
