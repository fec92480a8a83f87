import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { backends } from '../../support/backends';
import type { Database, Queryable } from '../../../src/db/database';
import { BUY_ACTIVITY_PARAMS, BUY_ACTIVITY_STATEMENT, trackStatementFor, type TrackRow } from '../../../src/domain/track-record/track-sql';
import type { TradeEvent } from '../../../src/domain/trading/trade-hooks';
import { dayOf, monthStart, weekStart } from '../../../src/domain/track-record/periods';

const DAY = 86_400_000;
const ROW = `w_bucket::text, w_trades, w_volume, m_bucket::text, m_trades, m_volume, a_trades, a_volume, streak, last_trade_day::text, day::text, day_trades,
  progress, prev_progress, market_ids, trade_xp, win_xp, xp_gain, xp, yday::text, yday_progress, track_seq`;

describe.each(backends())("the buy's track statement on $name", (backend) => {
  let db: Database;
  let drop: () => Promise<void>;
  const user = randomUUID();

  beforeAll(async () => {
    ({ db, drop } = await backend.open());
    await db.query(
      `INSERT INTO users (id, email, password_hash, display_name, referral_code, balance_micro) VALUES ($1, 'x@example.com', 'x', 'X', 'XCODE', 1000000000000)`,
      [user],
    );
  });
  afterAll(async () => drop());

  /** Runs `fn` on the account row in `state` in a transaction that is rolled back; returns what it returned and the row after. */
  async function onState(state: Record<string, unknown>, fn: (tx: Queryable) => Promise<TrackRow | undefined>) {
    const rollback = new Error('rollback');
    let out: unknown;
    await db
      .transaction(async (tx) => {
        const cols = Object.keys(state);
        if (cols.length > 0)
          await tx.query(`UPDATE users SET ${cols.map((c, i) => `${c} = $${i + 2}`).join(', ')} WHERE id = $1`, [user, ...cols.map((c) => state[c])]);
        const returned = await fn(tx);
        out = { returned, row: (await tx.query(`SELECT ${ROW} FROM users WHERE id = $1`, [user]))[0] };
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

  test('changes the account row and answers exactly as track_event() does, for buys on any day against any state of the row', async () => {
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
});
