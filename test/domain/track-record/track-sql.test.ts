import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { backends } from '../../support/backends';
import type { Database, Queryable } from '../../../src/db/database';
import {
  BUY_ACTIVITY_PARAMS,
  BUY_ACTIVITY_STATEMENT,
  BUY_SAME_DAY_STATEMENT,
  TRACK_EVENT_DEFINITION,
  trackStatementFor,
  type TrackRow,
} from '../../../src/domain/track-record/track-sql';
import { dayOf, monthStart, weekStart } from '../../../src/domain/track-record/periods';

const DAY = 86_400_000;
const ROW = `w_bucket::text, w_trades, w_volume, m_bucket::text, m_trades, m_volume, a_trades, a_volume, streak, last_trade_day::text, day::text, day_trades,
  progress, prev_progress, market_ids, trade_xp, win_xp, xp_gain, xp, yday::text, yday_progress,
  pw_bucket::text, pw_trades, pw_volume, pm_bucket::text, pm_trades, pm_volume, pa_trades, pa_volume`;

describe.each(backends())("the buy's track statement on $name", (backend) => {
  let db: Database;
  let drop: () => Promise<void>;
  const user = randomUUID();

  beforeAll(async () => {
    ({ db, drop } = await backend.open());
    await db.query(`INSERT INTO users (id, email, password_hash, display_name, referral_code) VALUES ($1, 'x@example.com', 'x', 'X', 'XCODE')`, [user]);
  });
  afterAll(async () => drop());

  test('is cut from the track_event() the database has', async () => {
    const rows = await db.query<{ prosrc: string }>(`SELECT prosrc FROM pg_proc WHERE proname = 'track_event'`);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.prosrc).toBe(TRACK_EVENT_DEFINITION.split('$fn$')[1]);
  });

  /** Runs `fn` on the activity row `state` in a transaction that is rolled back; returns what it returned and the row after. */
  async function onState(state: Record<string, unknown>, fn: (tx: Queryable) => Promise<TrackRow | undefined>) {
    const rollback = new Error('rollback');
    let out: unknown;
    await db
      .transaction(async (tx) => {
        const cols = Object.keys(state);
        await tx.query(
          `INSERT INTO trader_activity (user_id, is_agent, display_name, ${cols.join(', ')}) VALUES ($1, false, 'X', ${cols.map((_, i) => `$${i + 2}`).join(', ')})`,
          [user, ...cols.map((c) => state[c])],
        );
        const returned = await fn(tx);
        out = { returned, row: (await tx.query(`SELECT ${ROW} FROM trader_activity WHERE user_id = $1`, [user]))[0] };
        throw rollback;
      })
      .catch((err) => {
        if (err !== rollback) throw err;
      });
    return out;
  }

  const base = Date.parse('2030-03-01T12:00:00Z');
  const day = (offset: number) => dayOf(new Date(base + offset * DAY));
  /**
   * Days from the buy (negative: before it), 0 three times in four: a trader's buys mostly come on a day they have
   * traded, and the same-day statement's case must come up often (about a third of the runs) for its property to say much.
   */
  const around = (min: number, max: number) => fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.integer({ min, max }), weight: 1 });
  /** A buy, and a state of the trader's activity row (its days and buckets in days from the buy), pending figures and all. */
  const buyOnState = fc.record({
    at: fc.integer({ min: 0, max: 60 }),
    market: fc.constantFrom('m1', 'm2', 'm3', 'm4'),
    cash: fc.integer({ min: 1, max: 50_000_000 }),
    weekAt: fc.integer({ min: -20, max: 8 }),
    monthAt: fc.integer({ min: -70, max: 35 }),
    lastTrade: fc.option(around(-3, 1), { nil: null, freq: 6 }),
    dayAt: around(-3, 1),
    counts: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 6, maxLength: 6 }),
    marketIds: fc.subarray(['m1', 'm2', 'm3']),
    progress: fc.integer({ min: 0, max: 30_000_000 }),
    tradeXp: fc.integer({ min: 0, max: 100 }),
    winXp: fc.integer({ min: 0, max: 100 }),
    xp: fc.integer({ min: 0, max: 5000 }),
    // Pending figures not yet folded: none (bucket null, twins 0, as a fold leaves them), or some in a week and month.
    pending: fc.option(
      fc.record({ weekAt: around(-10, 8), monthAt: around(-40, 35), trades: fc.integer({ min: 1, max: 9 }), volume: fc.integer({ min: 1, max: 9_000_000 }) }),
      { nil: null },
    ),
  });
  type BuyOnState = typeof buyOnState extends fc.Arbitrary<infer T> ? T : never;

  function stateAndParams(c: BuyOnState) {
    const at = new Date(base + c.at * DAY);
    const state = {
      w_bucket: weekStart(new Date(at.getTime() + c.weekAt * DAY)),
      w_trades: c.counts[0],
      w_volume: c.counts[1]! * 1_000_000,
      m_bucket: monthStart(new Date(at.getTime() + c.monthAt * DAY)),
      m_trades: c.counts[2],
      m_volume: c.counts[3]! * 1_000_000,
      a_trades: c.counts[4]! + 40,
      a_volume: 99_000_000,
      streak: c.counts[5],
      last_trade_day: c.lastTrade === null ? null : day(c.at + c.lastTrade),
      day: day(c.at + c.dayAt),
      day_trades: c.counts[0],
      progress: c.progress,
      prev_progress: 0,
      market_ids: c.marketIds,
      trade_xp: c.tradeXp,
      win_xp: c.winXp,
      xp: c.xp,
      pw_bucket: c.pending ? weekStart(new Date(at.getTime() + c.pending.weekAt * DAY)) : null,
      pw_trades: c.pending?.trades ?? 0,
      pw_volume: c.pending?.volume ?? 0,
      pm_bucket: c.pending ? monthStart(new Date(at.getTime() + c.pending.monthAt * DAY)) : null,
      pm_trades: c.pending?.trades ?? 0,
      pm_volume: c.pending?.volume ?? 0,
      pa_trades: c.pending ? c.pending.trades + 3 : 0,
      pa_volume: c.pending ? c.pending.volume + 3_000_000 : 0,
    };
    const { sql, params } = trackStatementFor({
      userId: user,
      side: 'BUY',
      marketId: c.market,
      tokenId: `${c.market}-yes`,
      quantityMicro: 2n * BigInt(c.cash),
      cashMicro: BigInt(c.cash),
      realizedPnlMicro: 0n,
      at,
    });
    return { state, sql, params };
  }

  test('changes the activity row and answers exactly as track_event() does, for buys on any day against any state of the row', async () => {
    await fc.assert(
      fc.asyncProperty(buyOnState, async (c) => {
        const { state, sql, params } = stateAndParams(c);
        const direct = await onState(state, async (tx) => (await tx.query<TrackRow>(BUY_ACTIVITY_STATEMENT, params.slice(0, BUY_ACTIVITY_PARAMS)))[0]);
        const viaFunction = await onState(state, async (tx) => (await tx.query<TrackRow>(sql, params))[0]);
        expect(direct).toEqual(viaFunction);
        expect((direct as { returned?: unknown }).returned).toBeDefined();
      }),
      { numRuns: 60 },
    );
  });

  test('the same-day statement changes the row and answers exactly as the full one whenever it applies, and otherwise changes nothing (the full one then runs)', async () => {
    let applied = 0;
    await fc.assert(
      fc.asyncProperty(buyOnState, async (c) => {
        const { state, params } = stateAndParams(c);
        const buy = params.slice(0, BUY_ACTIVITY_PARAMS);
        const full = await onState(state, async (tx) => (await tx.query<TrackRow>(BUY_ACTIVITY_STATEMENT, buy))[0]);
        // As the listener runs them: the same-day statement, and the full one only when it updated nothing.
        const sameDay = await onState(state, async (tx) => {
          const r = (await tx.query<TrackRow>(BUY_SAME_DAY_STATEMENT, buy))[0];
          if (r) applied += 1;
          return r ?? (await tx.query<TrackRow>(BUY_ACTIVITY_STATEMENT, buy))[0];
        });
        expect(sameDay).toEqual(full);
        // Whenever it applies it must: a buy on a day already traded, in the pending week and month or with none.
        const p = c.pending;
        const applies =
          c.dayAt === 0 &&
          c.lastTrade === 0 &&
          (!p ||
            (weekStart(new Date(base + (c.at + p.weekAt) * DAY)) === weekStart(new Date(base + c.at * DAY)) &&
              monthStart(new Date(base + (c.at + p.monthAt) * DAY)) === monthStart(new Date(base + c.at * DAY))));
        const alone = await onState(state, async (tx) => (await tx.query<TrackRow>(BUY_SAME_DAY_STATEMENT, buy))[0]);
        expect((alone as { returned?: unknown }).returned !== undefined).toBe(applies);
        if (!applies) expect((alone as { row: unknown }).row).toEqual(((await onState(state, async () => undefined)) as { row: unknown }).row);
      }),
      { numRuns: backend.name === 'pglite' ? 80 : 150 },
    );
    // The generator reaches the common case often, or the property says little of it.
    expect(applied).toBeGreaterThan(10);
  });

  test('updates nothing and answers nothing for a trader without an activity row (their first buy goes to track_event())', async () => {
    const { params } = trackStatementFor({
      userId: user,
      side: 'BUY',
      marketId: 'm1',
      tokenId: 'm1-yes',
      quantityMicro: 2n,
      cashMicro: 1n,
      realizedPnlMicro: 0n,
      at: new Date(),
    });
    expect(await db.query(BUY_ACTIVITY_STATEMENT, params.slice(0, BUY_ACTIVITY_PARAMS))).toEqual([]);
    expect(await db.query('SELECT 1 FROM trader_activity WHERE user_id = $1', [user])).toEqual([]);
  });
});
