import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { backends, describeOnPostgres } from '../../support/backends';
import type { Database } from '../../../src/db/database';
import { ANNOUNCE_MS, BoardFolder, FOLD_LOCK, WATCH_MS } from '../../../src/domain/track-record/board-folder';
import { trackTrade } from '../../../src/domain/track-record/track-listener';
import { renameCard } from '../../../src/domain/track-record/account-changes';
import { monthStart, weekStart } from '../../../src/domain/track-record/periods';
import type { TradeEvent } from '../../../src/domain/trading/trade-hooks';

const DAY = 86_400_000;
const BASE = Date.parse('2030-03-01T12:00:00Z');
const RANKED = 'w_bucket::text, w_trades, w_volume, m_bucket::text, m_trades, m_volume, a_trades, a_volume';

async function newTrader(db: Database): Promise<string> {
  const id = randomUUID();
  await db.query(`INSERT INTO users (id, email, password_hash, display_name, referral_code) VALUES ($1, $2, 'x', 'X', $3)`, [
    id,
    `${id}@example.com`,
    id.slice(0, 12),
  ]);
  await db.query('INSERT INTO track_figures (user_id) VALUES ($1)', [id]);
  return id;
}

const buy = (userId: string, at: Date, cashMicro: bigint, side: 'BUY' | 'SELL' = 'BUY'): TradeEvent => ({
  userId,
  side,
  marketId: 'm1',
  tokenId: 'm1-yes',
  quantityMicro: 2n * cashMicro,
  cashMicro,
  realizedPnlMicro: 0n,
  at,
});

/** The ranked columns as if every event had been applied to them directly, in any order: the latest period's events. */
function expected(events: TradeEvent[]) {
  const week = events
    .map((e) => weekStart(e.at))
    .sort()
    .at(-1)!;
  const month = events
    .map((e) => monthStart(e.at))
    .sort()
    .at(-1)!;
  const inWeek = events.filter((e) => weekStart(e.at) === week);
  const inMonth = events.filter((e) => monthStart(e.at) === month);
  const sum = (es: TradeEvent[]) => es.reduce((s, e) => s + e.cashMicro, 0n);
  return {
    w_bucket: week,
    w_trades: inWeek.length,
    w_volume: sum(inWeek),
    m_bucket: month,
    m_trades: inMonth.length,
    m_volume: sum(inMonth),
    a_trades: events.length,
    a_volume: sum(events),
  };
}

describe.each(backends())('the board folder on $name', (backend) => {
  let db: Database;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await backend.open());
  });
  afterAll(async () => drop());

  test('when trades of any periods arrive in any order with folds between them, then the board row ends as if each had been applied to it, and the account row counts them exactly throughout', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ day: fc.integer({ min: 0, max: 70 }), cash: fc.integer({ min: 1, max: 9_000_000 }), sell: fc.boolean(), foldAfter: fc.boolean() }),
          { minLength: 1, maxLength: 25 },
        ),
        async (steps) => {
          const user = await newTrader(db);
          const folder = new BoardFolder(db);
          const events: TradeEvent[] = [];
          for (const s of steps) {
            const e = buy(user, new Date(BASE + s.day * DAY), BigInt(s.cash), s.sell ? 'SELL' : 'BUY');
            await db.transaction((tx) => trackTrade(tx, e, (id, seq) => folder.mark(id, seq)));
            events.push(e);
            const [row] = await db.query<{ n: number }>('SELECT a_trades AS n FROM track_figures WHERE user_id = $1', [user]);
            expect(row!.n).toBe(events.length);
            if (s.foldAfter) await folder.flush();
          }
          await folder.flush();
          const [row] = await db.query(
            `SELECT ${RANKED}, seq = (SELECT track_seq FROM track_figures WHERE user_id = $1) AS current FROM trader_activity WHERE user_id = $1`,
            [user],
          );
          expect(row).toEqual({ ...expected(events), current: true });
        },
      ),
      { numRuns: backend.name === 'pglite' ? 25 : 40 },
    );
  });

  test("when a buy updates a trader's figures row, then the update is heap-only: no index is written, and the board row is not touched", async () => {
    const user = await newTrader(db);
    await db.transaction((tx) => trackTrade(tx, buy(user, new Date(BASE), 1_000_000n)));
    const counts = await db.transaction(async (tx) => {
      // The session's counts not yet reported, before and after the buy's statement.
      const read = async () =>
        (
          await tx.query<{ updated: bigint; hot: bigint; board: bigint }>(
            `SELECT pg_stat_get_xact_tuples_updated('track_figures'::regclass) AS updated, pg_stat_get_xact_tuples_hot_updated('track_figures'::regclass) AS hot,
                    pg_stat_get_xact_tuples_updated('trader_activity'::regclass) + pg_stat_get_xact_tuples_inserted('trader_activity'::regclass) AS board`,
          )
        )[0]!;
      const before = await read();
      await trackTrade(tx, buy(user, new Date(BASE + DAY), 2_000_000n));
      const after = await read();
      return { updated: after.updated - before.updated, hot: after.hot - before.hot, board: after.board - before.board };
    });
    expect(counts).toEqual({ updated: 1n, hot: 1n, board: 0n });
  });

  test('when board rows are left behind by a folder that never folds (a process that died), then sweep folds them', async () => {
    const users = [await newTrader(db), await newTrader(db)];
    const dead = new BoardFolder(db);
    for (const u of users) {
      await db.transaction((tx) => trackTrade(tx, buy(u, new Date(BASE), 1_000_000n), (id, seq) => dead.mark(id, seq)));
      await db.transaction((tx) => trackTrade(tx, buy(u, new Date(BASE), 3_000_000n), (id, seq) => dead.mark(id, seq)));
    }
    expect(await new BoardFolder(db).sweep()).toBeGreaterThanOrEqual(2);
    const rows = await db.query(
      'SELECT t.a_trades, t.a_volume, t.seq = f.track_seq AS current FROM trader_activity t JOIN track_figures f ON f.user_id = t.user_id WHERE t.user_id = ANY($1::uuid[])',
      [users],
    );
    expect(rows).toEqual([
      { a_trades: 2, a_volume: 4_000_000n, current: true },
      { a_trades: 2, a_volume: 4_000_000n, current: true },
    ]);
    expect(await new BoardFolder(db).sweep()).toBe(0);
  });
});

describe.each(backends())('boards read, and folds, across processes on $name', (backend) => {
  let db: Database;
  let drop: () => Promise<void>;
  const started: BoardFolder[] = [];

  beforeAll(async () => {
    ({ db, drop } = await backend.open());
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((f) => f.stop()));
  });
  afterAll(async () => drop());

  /** How many of the trader's trades their board row lacks. */
  const pending = async (user: string) =>
    (
      await db.query<{ n: number }>(
        'SELECT f.a_trades - coalesce(t.a_trades, 0) AS n FROM track_figures f LEFT JOIN trader_activity t ON t.user_id = f.user_id WHERE f.user_id = $1',
        [user],
      )
    )[0]!.n;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** Polls until `ok` holds, for at most `ms`. */
  async function within(ms: number, ok: () => Promise<boolean>): Promise<boolean> {
    const until = Date.now() + ms;
    for (;;) {
      if (await ok()) return true;
      if (Date.now() > until) return false;
      await sleep(20);
    }
  }
  /** A trader with a board row as new as their account row, after a first trade. */
  async function traderWithRow(): Promise<string> {
    const user = await newTrader(db);
    const folder = new BoardFolder(db);
    await db.transaction((tx) => trackTrade(tx, buy(user, new Date(BASE), 1_000_000n), (id, seq) => folder.mark(id, seq)));
    await folder.flush();
    expect(await pending(user)).toBe(0);
    return user;
  }
  /** A started folder on its own clock, as one process of several (each its own LISTEN session). */
  async function startedFolder(clock: { now: number }): Promise<BoardFolder> {
    const folder = new BoardFolder(db, undefined, 20, () => clock.now);
    await folder.start(); // and its first sweep is over
    started.push(folder);
    return folder;
  }
  /** Resolves when `folder` next hears that boards are read. */
  function nextWord(folder: BoardFolder): Promise<void> {
    const watch = folder.watch.bind(folder);
    return new Promise((resolve) => {
      folder.watch = () => {
        watch();
        folder.watch = watch;
        resolve();
      };
    });
  }

  test('when no process has read a board for longer than it watches, then a trading process leaves its trades pending; when a reader says again that boards are read, it folds them within its interval', async () => {
    const trading = { now: 0 };
    const reading = { now: 0 };
    const trader = await startedFolder(trading);
    const reader = await startedFolder(reading);
    // The reader read a board (and said so, sweeping first: nothing was pending), and the trader heard it.
    const heard = nextWord(trader);
    await reader.beforeRead(5000);
    await heard;
    // Time goes by in both: the trader's last word is older than it watches.
    trading.now += WATCH_MS + 1;
    expect(trader.watched).toBe(false);
    const user = await traderWithRow();
    await db.transaction((tx) => trackTrade(tx, buy(user, new Date(BASE), 1_000_000n), (id, seq) => trader.mark(id, seq)));
    await sleep(200); // ten of the trader's intervals
    expect(await pending(user)).toBe(1);

    // The reader reads again after more than ANNOUNCE_MS (within the others' watch, so it does not sweep): it says so.
    reading.now += ANNOUNCE_MS + 1;
    await reader.beforeRead(5000);
    expect(await within(5000, async () => (await pending(user)) === 0)).toBe(true);
    expect(trader.watched).toBe(true);
  });

  test('when a process reads its first board, or its first after a long quiet, then it sweeps what other processes left pending before it reads', async () => {
    const reading = { now: 0 };
    const reader = await startedFolder(reading);
    for (const quiet of [0, WATCH_MS]) {
      reading.now += quiet;
      const user = await traderWithRow();
      // Left pending by processes that do not fold: one that stopped watching, one that died.
      await db.transaction((tx) => trackTrade(tx, buy(user, new Date(BASE), 2_000_000n), (id, seq) => new BoardFolder(db).mark(id, seq)));
      await db.transaction((tx) => trackTrade(tx, buy(user, new Date(BASE), 4_000_000n)));
      expect(await pending(user)).toBe(2);
      await reader.beforeRead(5000);
      expect(await db.query('SELECT a_trades, a_volume FROM trader_activity WHERE user_id = $1', [user])).toEqual([{ a_trades: 3, a_volume: 7_000_000n }]);
      expect(await pending(user)).toBe(0);
    }
  });

  test('when a process alone reads boards, then its own word does not make it fold on its timer (its reads fold its marks)', async () => {
    const reading = { now: 0 };
    const reader = await startedFolder(reading);
    const other = await startedFolder({ now: 0 });
    reading.now += WATCH_MS + 1;
    expect(reader.watched).toBe(false);
    // The word goes out to every process: the other one hears it, the reader itself does not act on it.
    const heard = nextWord(other);
    await reader.beforeRead(5000);
    await heard;
    await sleep(100);
    expect(reader.watched).toBe(false);
  });

  test('when a process reads a board, then its own marked trades are folded before the read, whether or not any process watches', async () => {
    const clock = { now: 0 };
    const folder = await startedFolder(clock);
    await folder.beforeRead(5000);
    clock.now += 1; // its word is fresh: no sweep, no word, only its own fold
    const user = await traderWithRow();
    await db.transaction((tx) => trackTrade(tx, buy(user, new Date(BASE), 1_000_000n), (id, seq) => folder.mark(id, seq)));
    // Watching or not, the timer has not had its turn when the read comes right after the trade.
    await folder.beforeRead(5000);
    expect(await pending(user)).toBe(0);
  });
});

describeOnPostgres('the board folder under concurrency on $name', (backend) => {
  let db: Database;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await backend.open());
  });
  afterAll(async () => drop());

  test('when a fold takes the mark of a trade still in its transaction, then it does not wait for it, keeps the mark, and the next fold folds what the trade committed', async () => {
    const user = await newTrader(db);
    const folder = new BoardFolder(db);
    await db.transaction((tx) => trackTrade(tx, buy(user, new Date(BASE), 1_000_000n), (id, seq) => folder.mark(id, seq)));
    await folder.flush();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let marked!: () => void;
    const isMarked = new Promise<void>((r) => (marked = r));
    const trade = db.transaction(async (tx) => {
      await trackTrade(tx, buy(user, new Date(BASE), 5_000_000n), (id, seq) => {
        folder.mark(id, seq);
        marked();
      });
      await held;
    });
    await isMarked;
    // The fold does not wait for the trade, copies only what has committed, and keeps the mark (its copy is older).
    await folder.flush();
    release();
    await trade;
    expect(await db.query('SELECT a_trades FROM trader_activity WHERE user_id = $1', [user])).toEqual([{ a_trades: 1 }]);
    // The mark was kept: the next fold takes what the trade committed.
    await folder.flush();
    expect(await db.query('SELECT a_trades, a_volume FROM trader_activity WHERE user_id = $1', [user])).toEqual([{ a_trades: 2, a_volume: 6_000_000n }]);
  });

  /** Whether `p` is still unsettled after `ms`. */
  const stillWaiting = async (p: Promise<unknown>, ms: number) =>
    Promise.race([
      p.then(
        () => false,
        () => false,
      ),
      new Promise<boolean>((r) => setTimeout(() => r(true), ms)),
    ]);

  test("when a transaction holds the folds' lock, then a fold and a sweep wait for it, and copy once it is released", async () => {
    const user = await newTrader(db);
    const folder = new BoardFolder(db);
    await db.transaction((tx) => trackTrade(tx, buy(user, new Date(BASE), 1_000_000n), (id, seq) => folder.mark(id, seq)));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = db.transaction(async (tx) => {
      await tx.query(FOLD_LOCK);
      locked();
      await released;
    });
    await isLocked;
    const flushed = folder.flush();
    const swept = folder.sweep();
    expect(await stillWaiting(Promise.race([flushed, swept]), 300)).toBe(true);
    expect(await db.query('SELECT count(*)::int AS n FROM trader_activity WHERE user_id = $1', [user])).toEqual([{ n: 0 }]);
    release();
    await holder;
    await Promise.all([flushed, swept]);
    expect(await db.query('SELECT a_trades FROM trader_activity WHERE user_id = $1', [user])).toEqual([{ a_trades: 1 }]);
  });

  test('when a rename holds a board row that a fold copies, then the fold waits for the rename, keeps the new name and copies the figures', async () => {
    const users = await Promise.all(Array.from({ length: 3 }, () => newTrader(db)));
    const folder = new BoardFolder(db);
    for (const u of users) await db.transaction((tx) => trackTrade(tx, buy(u, new Date(BASE), 1_000_000n), (id, seq) => folder.mark(id, seq)));
    await folder.flush();
    for (const u of users) await db.transaction((tx) => trackTrade(tx, buy(u, new Date(BASE), 2_000_000n), (id, seq) => folder.mark(id, seq)));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let renamed!: () => void;
    const isRenamed = new Promise<void>((r) => (renamed = r));
    const rename = db.transaction(async (tx) => {
      await tx.query('UPDATE users SET display_name = $2 WHERE id = $1', [users[1], 'Renamed']);
      await renameCard(tx, { id: users[1]!, displayName: 'Renamed' });
      renamed();
      await released;
    });
    await isRenamed;
    const flushed = folder.flush();
    expect(await stillWaiting(flushed, 300)).toBe(true);
    release();
    await rename;
    await flushed;
    const rows = await db.query<{ user_id: string; display_name: string; a_trades: number; a_volume: bigint }>(
      'SELECT user_id, display_name, a_trades, a_volume FROM trader_activity WHERE user_id = ANY($1::uuid[]) ORDER BY user_id',
      [users],
    );
    expect(rows.map((r) => [r.a_trades, r.a_volume])).toEqual(users.map(() => [2, 3_000_000n]));
    expect(rows.find((r) => r.user_id === users[1])!.display_name).toBe('Renamed');
  });

  test('when eight connections trade for five traders while two folders fold and sweep, then every trade is counted once', async () => {
    const users = await Promise.all(Array.from({ length: 5 }, () => newTrader(db)));
    const folders = [new BoardFolder(db), new BoardFolder(db)];
    // Each trader's first trade: their board row is created by whichever fold comes first.
    for (const u of users) await db.transaction((tx) => trackTrade(tx, buy(u, new Date(BASE), 1_000_000n), (id, seq) => folders[0]!.mark(id, seq)));
    let trading = true;
    const folding = (async () => {
      while (trading) {
        await Promise.all([folders[0]!.flush(), folders[1]!.flush(), folders[1]!.sweep()]);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; i < 40; i += 1) {
          const u = users[(w + i) % users.length]!;
          await db.transaction((tx) => trackTrade(tx, buy(u, new Date(BASE + (i % 9) * DAY), 1_000_000n), (id, seq) => folders[w % 2]!.mark(id, seq)));
        }
      }),
    );
    trading = false;
    await folding;
    await Promise.all(folders.map((f) => f.flush()));
    const rows = await db.query<{ a_trades: number; current: boolean }>(
      'SELECT t.a_trades, t.seq = f.track_seq AS current FROM trader_activity t JOIN track_figures f ON f.user_id = t.user_id WHERE t.user_id = ANY($1::uuid[])',
      [users],
    );
    expect(rows).toHaveLength(5);
    expect(rows.reduce((s, r) => s + r.a_trades, 0)).toBe(5 + 8 * 40);
    expect(rows.every((r) => r.current)).toBe(true);
  });
});
