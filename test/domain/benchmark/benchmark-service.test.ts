import type { Database } from '../../../src/db/database';
import { BenchmarkService } from '../../../src/domain/benchmark/benchmark-service';

const U1 = '00000000-0000-4000-8000-000000000001';
const U2 = '00000000-0000-4000-8000-000000000002';
const figure = (value: number) => ({ value, n: 40, low: value - 0.01, high: value + 0.01 });

/**
 * A database answering the service's statements from what the test sets: board rows, an audience's figures, a caller's
 * row, a counted place and a record. The benchmark's change counter answers `mark`, which a test moves to stand for
 * another process's commit.
 */
class Scripted {
  mark = 'm1';
  reads = { board: 0, standings: 0, callerRow: 0, place: 0, record: 0, mark: 0, references: 0 };
  name = 'First';
  rank = 7;
  /** The ranked agents' Brier and first 8 hex digits of their ids, all with 40 resolved markets (the board ranks low first). */
  agents: Array<[number, string]> = [
    [0.1, 'ffffffff'],
    [0.2, 'ffffffff'],
    [0.25, '00000000'], // the caller below, …0009
    [0.3, 'ffffffff'],
  ];
  callerBrier = 0.25;
  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    if (sql.includes('AS mark FROM benchmark_changes')) return (this.reads.mark++, [{ mark: this.mark }] as T[]);
    // A board's reference forecasters (read with the board, kept with it): none here.
    if (sql.includes('u.reference IS NOT NULL')) return (this.reads.references++, [] as T[]);
    if (sql.includes('string_agg')) {
      this.reads.standings += 1;
      return [{ version: this.mark, standings: params[1] === 'agents' ? packed(this.agents) : null }] as T[];
    }
    if (sql.includes('sort_brier')) {
      this.reads.callerRow += 1;
      const row: Record<string, unknown> = { version: this.mark, audience: 'agents', resolved_markets: 40 };
      for (const m of ['alpha', 'brier', 'log_score', 'clv', 'sharpe', 'return', 'max_drawdown']) {
        row[`sort_${m}`] = m === 'brier' ? this.callerBrier : null;
        row[`figure_${m}`] = m === 'brier' ? figure(this.callerBrier) : null;
      }
      return [row] as T[];
    }
    if (sql.includes('LATERAL')) {
      this.reads.board += 1;
      return [
        { user_id: U1, display_name: this.name, is_agent: true, reference: null, resolved_markets: 40, figure: figure(0.1) },
        { user_id: U2, display_name: 'Second', is_agent: true, reference: null, resolved_markets: 35, figure: figure(0.2) },
      ] as T[];
    }
    if (sql.includes('count(*)')) {
      this.reads.place += 1;
      return [{ rank: this.rank }] as T[];
    }
    this.reads.record += 1;
    return [{ user_id: U1, display_name: this.name, is_agent: true, reference: null, resolved_markets: 0, record: null, computed_at: null }] as T[];
  }
}

/** Standings as PostgreSQL packs them (float8send, int4send, the id's first 4 bytes), each with 40 resolved markets, in the order given. */
function packed(standings: Array<[number, string]>): Buffer {
  const bytes = Buffer.alloc(standings.length * 16);
  standings.forEach(([f, id], i) => {
    bytes.writeDoubleBE(f, i * 16);
    bytes.writeUInt32BE(40, i * 16 + 8);
    bytes.writeUInt32BE(parseInt(id, 16), i * 16 + 12);
  });
  return bytes;
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

  test("when a caller is on the board's rows, then their place is their row's; else the place found among the board's figures", async () => {
    // The figures put U1's 0.25 third; the board shows U1 first (read at another moment): the answer agrees with its rows.
    const mine = await service.leaderboard({ ...board, userId: U1 });
    expect(mine.you).toEqual({ rank: 1, resolvedMarkets: 40, figure: figure(0.1) });
    expect(mine.entries).toBe((await service.leaderboard(board)).entries);
    const other = await service.leaderboard({ ...board, userId: '00000000-0000-4000-8000-000000000009' });
    expect(other.you).toEqual({ rank: 3, resolvedMarkets: 40, figure: figure(0.25) });
    // Each view is made per request, frozen, and shares the board's frozen rows (their bytes are encoded once).
    const again = await service.leaderboard({ ...board, userId: '00000000-0000-4000-8000-000000000009' });
    expect(again).toEqual(other);
    expect(Object.isFrozen(again) && Object.isFrozen(again.entries)).toBe(true);
    expect(again.entries).toBe(mine.entries);
    // Nothing counted: one read of each caller's row and one of the agents' figures, kept.
    expect(db.reads).toMatchObject({ board: 1, standings: 1, callerRow: 2, place: 0 });
  });

  test("when another account has the caller's figure, then the tie is broken in memory as the board breaks it (more resolved markets, then the lower id)", async () => {
    db.agents = [
      [0.1, 'ffffffff'],
      [0.25, 'ffffffff'],
      [0.25, '00000000'],
    ];
    const other = await service.leaderboard({ ...board, userId: '00000000-0000-4000-8000-000000000009' });
    expect(other.you!.rank).toBe(2);
    expect(db.reads.place).toBe(0);
  });

  test("when another account's standing is the caller's as far as the kept standings tell (same figure, resolved markets and first 32 bits of id), then the database counts", async () => {
    db.agents = [
      [0.1, 'ffffffff'],
      [0.25, '00000000'],
      [0.25, '00000000'],
    ];
    const other = await service.leaderboard({ ...board, userId: '00000000-0000-4000-8000-000000000009' });
    expect(other.you!.rank).toBe(7);
    expect(db.reads.place).toBe(1);
  });

  test('when the figures and the caller’s row were read under different counts of changes, then the place is counted', async () => {
    await service.leaderboard({ ...board, userId: '00000000-0000-4000-8000-000000000008' }); // figures read under m1
    db.mark = 'm2';
    const other = await service.leaderboard({ ...board, userId: '00000000-0000-4000-8000-000000000009' }); // row under m2
    expect(other.you!.rank).toBe(7);
    expect(db.reads).toMatchObject({ standings: 1, place: 1 });
  });

  test('when the caller is on another audience or below the minimum of resolved markets, then their figure shows without a rank', async () => {
    const people = await service.leaderboard({ ...board, audience: 'all', userId: '00000000-0000-4000-8000-000000000009' });
    expect(people.you).toEqual({ rank: null, resolvedMarkets: 40, figure: figure(0.25) });
    expect(db.reads).toMatchObject({ standings: 0, place: 0 });
  });

  test("when a value has not been asked for past twice cacheMs but another value's check saw its mark, then it is served without a check of its own", async () => {
    const other = { ...board, metric: 'alpha' as const };
    await service.leaderboard(board);
    await service.leaderboard(other);
    clock = 1500;
    await service.leaderboard(other); // served; its renewal checks the mark (unchanged)
    await new Promise((r) => setTimeout(r, 10));
    const checks = db.reads.mark;
    clock = 2200; // the first board: past twice its time, but the check at 1500 saw its mark
    await service.leaderboard(board);
    expect(db.reads.mark).toBe(checks);
    expect(db.reads.board).toBe(2);
  });
});
