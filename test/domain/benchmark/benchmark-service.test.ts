import type { Database } from '../../../src/db/database';
import { BenchmarkService } from '../../../src/domain/benchmark/benchmark-service';

const U1 = '00000000-0000-4000-8000-000000000001';
const U2 = '00000000-0000-4000-8000-000000000002';
const figure = (value: number) => ({ value, n: 40, low: value - 0.01, high: value + 0.01 });

/**
 * A database answering the service's three statements from what the test sets: board rows, a caller's place and a
 * record. The commit watermark answers `mark`, which a test moves to stand for another process's commit.
 */
class Scripted {
  mark = 'm1';
  reads = { board: 0, place: 0, record: 0 };
  name = 'First';
  rank = 7;
  async query<T>(sql: string): Promise<T[]> {
    if (sql.includes('pg_current_snapshot')) return [{ mark: this.mark }] as T[];
    if (sql.includes('LATERAL')) {
      this.reads.board += 1;
      return [
        { user_id: U1, display_name: this.name, is_agent: true, reference: null, resolved_markets: 40, figure: figure(0.1) },
        { user_id: U2, display_name: 'Second', is_agent: true, reference: null, resolved_markets: 35, figure: figure(0.2) },
      ] as T[];
    }
    if (sql.includes('count(*)')) {
      this.reads.place += 1;
      return [{ resolved_markets: 40, figure: figure(0.1), rank: this.rank }] as T[];
    }
    this.reads.record += 1;
    return [{ user_id: U1, display_name: this.name, is_agent: true, reference: null, resolved_markets: 0, record: null, computed_at: null }] as T[];
  }
}

const board = { season: 'all' as const, metric: 'brier' as const, audience: 'bots' as const, limit: 100 };

describe('BenchmarkService caches', () => {
  let db: Scripted;
  let clock: number;
  let service: BenchmarkService;
  beforeEach(() => {
    db = new Scripted();
    clock = 0;
    service = new BenchmarkService(db as unknown as Database, { cacheMs: 1000, clock: () => clock });
  });

  test('when a board is read again within cacheMs, then the same frozen board answers without a read', async () => {
    const a = await service.leaderboard(board);
    clock = 999;
    const b = await service.leaderboard(board);
    expect(b).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(db.reads.board).toBe(1);
    expect(a.you).toBeNull();
  });

  test('when this process invalidates, then the next read is fresh', async () => {
    await service.leaderboard(board);
    await service.record(U1, 'all');
    db.name = 'Renamed';
    service.invalidate();
    expect((await service.leaderboard(board)).entries[0]!.displayName).toBe('Renamed');
    expect((await service.record(U1, 'all')).displayName).toBe('Renamed');
    expect(db.reads).toMatchObject({ board: 2, record: 2 });
  });

  test('when another process commits, then a board past cacheMs is served once more and renewed, and the next read shows the commit', async () => {
    await service.leaderboard(board);
    db.name = 'Elsewhere';
    db.mark = 'm2';
    clock = 1500; // past its time, within twice it: served as it was while one renewal reads afresh
    expect((await service.leaderboard(board)).entries[0]!.displayName).toBe('First');
    await new Promise((r) => setTimeout(r, 10));
    expect((await service.leaderboard(board)).entries[0]!.displayName).toBe('Elsewhere');
    expect(db.reads.board).toBe(2);
  });

  test('when nothing committed, then a board past cacheMs is kept without reading it again', async () => {
    await service.leaderboard(board);
    clock = 1500;
    await service.leaderboard(board);
    await new Promise((r) => setTimeout(r, 10));
    clock = 2400;
    await service.leaderboard(board);
    expect(db.reads.board).toBe(1);
  });

  test("when a caller is on the board's rows, then their place is their row's; else the place read for them", async () => {
    // The place read says 7 (read at another moment); the board shows U1 first: the answer agrees with its rows.
    const mine = await service.leaderboard({ ...board, userId: U1 });
    expect(mine.you).toEqual({ rank: 1, resolvedMarkets: 40, figure: figure(0.1) });
    expect(mine.entries).toBe((await service.leaderboard(board)).entries);
    const other = await service.leaderboard({ ...board, userId: '00000000-0000-4000-8000-000000000009' });
    expect(other.you!.rank).toBe(7);
    // Kept per caller while neither part changed: the same object, so its JSON is made once.
    expect(await service.leaderboard({ ...board, userId: U1 })).toBe(mine);
    expect(db.reads).toMatchObject({ board: 1, place: 2 });
  });
});
