import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { backends } from '../../support/backends';
import type { Database, Queryable } from '../../../src/db/database';
import { BUY_ACTIVITY_PARAMS, BUY_ACTIVITY_STATEMENT, trackStatementFor, type TrackRow } from '../../../src/domain/track-record/track-sql';
import { TRACK_EVENT_V4 } from '../../../src/db/migrations/1700000000026-track-on-account';
import { TRACK_FIGURE_COLUMNS } from '../../../src/db/migrations/1700000000080-track-figures';
import type { TradeEvent } from '../../../src/domain/trading/trade-hooks';
import { dayOf, monthStart, weekStart } from '../../../src/domain/track-record/periods';

const DAY = 86_400_000;
/**
 * The rules as they were: track_event(), the PL/pgSQL function of migration 26 (dropped by migration 78), installed
 * inside each rolled-back transaction and called with the same parameters as the track record's own statements. It
 * wrote the figures on the account row, which migration 80 moved to track_figures: that transaction puts them back.
 */
const OLD_FIGURES = `ALTER TABLE users ${TRACK_FIGURE_COLUMNS.map((c) => `ADD COLUMN ${c}`).join(', ')}`;
/**
 */
const TRACK_EVENT_CALL = `SELECT * FROM track_event($1::uuid, $2::date, $3::date, $4::date, $5::int, $6::bigint, $7::bigint, $8::text, $9::bigint,
  $10::int, $11::int, $12::int, $13::int, $14::boolean, $15::boolean, $16::bigint, $17::int, $18::int, $19::int, $20::int, $21::smallint, $22::bigint, $23::bigint)`;
const RESULTS = `w_bucket::text, w_pnl, w_settled, w_won, m_bucket::text, m_pnl, m_settled, m_won, a_pnl, a_settled, a_won, a_closes, a_wins, a_profitable_sells`;
const ROW = `w_bucket::text, w_trades, w_volume, m_bucket::text, m_trades, m_volume, a_trades, a_volume, streak, last_trade_day::text, day::text, day_trades,
  progress, prev_progress, market_ids, trade_xp, win_xp, xp_gain, xp, yday::text, yday_progress, track_seq`;

describe.each(backends())("the buy's track statement on $name", (backend) => {
  let db: Database;
  let drop: () => Promise<void>;
  const user = randomUUID();

  beforeAll(async () => {
    ({ db, drop } = await backend.open());
    await db.query(`INSERT INTO users (id, email, password_hash, display_name, referral_code) VALUES ($1, 'x@example.com', 'x', 'X', 'XCODE')`, [user]);
    await db.query('INSERT INTO track_figures (user_id) VALUES ($1)', [user]);
  });
  afterAll(async () => drop());

  /**
   * Runs `fn` on the account row in `state` (and the results and calibration rows in `results`, `calibration`) in a
   * transaction that is rolled back; returns what it returned and the rows after. `old`: with track_event() installed.
   */
  async function onState(
    state: Record<string, unknown>,
    fn: (tx: Queryable) => Promise<TrackRow | undefined>,
    opts: { old?: boolean; results?: Record<string, unknown>; calibration?: Record<string, unknown> } = {},
  ) {
    const rollback = new Error('rollback');
    let out: unknown;
    await db
      .transaction(async (tx) => {
        if (opts.old) await tx.query(OLD_FIGURES);
        if (opts.old) await tx.query(TRACK_EVENT_V4);
        // The figures' row: the account row for the old function, the track record's own row for its statements.
        const [table, key] = opts.old ? ['users', 'id'] : ['track_figures', 'user_id'];
        const cols = Object.keys(state);
        if (cols.length > 0)
          await tx.query(`UPDATE ${table} SET ${cols.map((c, i) => `${c} = $${i + 2}`).join(', ')} WHERE ${key} = $1`, [user, ...cols.map((c) => state[c])]);
        for (const [table, row] of [
          ['trader_results', opts.results],
          ['user_calibration', opts.calibration],
        ] as const) {
          if (!row) continue;
          const rc = ['user_id', ...Object.keys(row)];
          await tx.query(`INSERT INTO ${table} (${rc.join(', ')}) VALUES (${rc.map((_, i) => `$${i + 1}`).join(', ')})`, [user, ...Object.values(row)]);
        }
        const returned = await fn(tx);
        out = {
          returned: returned && { ...returned, calibrated: undefined },
          row: (await tx.query(`SELECT ${ROW} FROM ${table} WHERE ${key} = $1`, [user]))[0],
          results: await tx.query(`SELECT ${RESULTS} FROM trader_results WHERE user_id = $1`, [user]),
          calibration: await tx.query('SELECT bucket, n, sum_forecast_micro, wins, sum_sq_error FROM user_calibration WHERE user_id = $1 ORDER BY bucket', [
            user,
          ]),
        };
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
   * traded.
   */
  const around = (min: number, max: number) => fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.integer({ min, max }), weight: 1 });
  /** A buy, and a state of the trader's account row (its days and buckets in days from the buy). */
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
    // A trader who has never traded: the account row as registration left it.
    fresh: fc.boolean(),
  });
  type BuyOnState = typeof buyOnState extends fc.Arbitrary<infer T> ? T : never;

  /** The trade event of the buy `c` describes, at `at`. */
  const buyEvent = (c: BuyOnState, at: Date): TradeEvent => ({
    userId: user,
    side: 'BUY',
    marketId: c.market,
    tokenId: `${c.market}-yes`,
    quantityMicro: 2n * BigInt(c.cash),
    cashMicro: BigInt(c.cash),
    realizedPnlMicro: 0n,
    at,
  });

  function stateAndParams(c: BuyOnState) {
    const at = new Date(base + c.at * DAY);
    const state: Record<string, unknown> = c.fresh
      ? {}
      : {
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
          track_seq: c.counts[1]! + 1,
        };
    const event = buyEvent(c, at);
    const { sql, params } = trackStatementFor(event);
    return { state, sql, params, at, event };
  }

  test('changes the account row and answers exactly as track_event() did, for buys on any day against any state of the row', async () => {
    await fc.assert(
      fc.asyncProperty(buyOnState, async (c) => {
        const { state, params } = stateAndParams(c);
        const direct = await onState(state, async (tx) => (await tx.query<TrackRow>(BUY_ACTIVITY_STATEMENT, params.slice(0, BUY_ACTIVITY_PARAMS)))[0]);
        const viaFunction = await onState(state, async (tx) => (await tx.query<TrackRow>(TRACK_EVENT_CALL, params))[0], { old: true });
        expect(direct).toEqual(viaFunction);
        expect((direct as { returned?: unknown }).returned).toBeDefined();
      }),
      { numRuns: 40 },
    );
  });

  /** A sale or settlement, and the results and calibration rows it meets (none: the trader's first). */
  const closeOnState = fc.record({
    buy: buyOnState,
    side: fc.constantFrom('SELL' as const, 'SETTLE' as const),
    won: fc.constantFrom(true, false, null),
    community: fc.boolean(),
    pnl: fc.integer({ min: -40_000_000, max: 40_000_000 }),
    entry: fc.integer({ min: 0, max: 1_000_000 }),
    results: fc.option(
      fc.record({
        weekAt: fc.integer({ min: -20, max: 8 }),
        monthAt: fc.integer({ min: -70, max: 35 }),
        counts: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 9, maxLength: 9 }),
      }),
      { nil: null },
    ),
    calibrated: fc.option(fc.record({ n: fc.integer({ min: 1, max: 30 }), wins: fc.integer({ min: 0, max: 30 }) }), { nil: null }),
  });

  test('changes the account, results and calibration rows and answers exactly as track_event() did, for sales and settlements', async () => {
    await fc.assert(
      fc.asyncProperty(closeOnState, async (c) => {
        const { state, at } = stateAndParams(c.buy);
        const market = c.community ? `cm-${'ab'.repeat(16)}-0` : `${c.buy.market}-yes`;
        const event: TradeEvent = {
          userId: user,
          side: c.side,
          marketId: c.buy.market,
          tokenId: market,
          quantityMicro: 3_000_000n,
          cashMicro: BigInt(Math.abs(c.pnl) + 1_000_000),
          realizedPnlMicro: BigInt(c.pnl),
          ...(c.side === 'SETTLE' ? { won: c.won, entryPriceMicro: BigInt(c.entry) } : {}),
          at,
        };
        const { sql, params } = trackStatementFor(event);
        const results = c.results && {
          is_agent: true,
          w_bucket: weekStart(new Date(at.getTime() + c.results.weekAt * DAY)),
          m_bucket: monthStart(new Date(at.getTime() + c.results.monthAt * DAY)),
          w_pnl: c.results.counts[0]! * 100_000 - 2_000_000,
          w_settled: c.results.counts[1],
          w_won: c.results.counts[2],
          m_pnl: c.results.counts[3]! * 100_000,
          m_settled: c.results.counts[4],
          m_won: c.results.counts[5],
          a_pnl: 7_000_000,
          a_settled: c.results.counts[6],
          a_won: c.results.counts[7],
          a_closes: c.results.counts[8]! + 1,
          a_wins: 2,
          a_profitable_sells: c.results.counts[2],
        };
        const bucket = Math.min(9, Math.floor(c.entry / 100_000));
        const calibration = c.calibrated && {
          bucket,
          n: c.calibrated.n,
          sum_forecast_micro: c.calibrated.n * 500_000,
          wins: c.calibrated.wins,
          sum_sq_error: 1234,
        };
        const opts = { results: results ?? undefined, calibration: calibration ?? undefined };
        const direct = await onState(state, async (tx) => (await tx.query<TrackRow>(sql, params))[0], opts);
        const viaFunction = await onState(state, async (tx) => (await tx.query<TrackRow>(TRACK_EVENT_CALL, params))[0], { ...opts, old: true });
        expect(direct).toEqual(viaFunction);
        expect((direct as { results: unknown[] }).results).toHaveLength(1);
      }),
      { numRuns: 60 },
    );
  });
});
