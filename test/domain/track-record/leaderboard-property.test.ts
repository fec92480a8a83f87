import fc from 'fast-check';
import { backends } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { ManualClock, HOUR } from '../../support/identity';
import { ControlledPrices, resolveMarket, seedMarket, type SeededMarket } from '../../support/markets';
import { auditLedger } from '../../../src/domain/audit/ledger-audit';
import { AppError } from '../../../src/errors/app-error';
import { PERIODS } from '../../../src/domain/track-record/periods';
import { levelOf } from '../../../src/domain/track-record/levels';
import { badgeOf } from '../../../src/domain/track-record/badges';
import { TRACK_RECORD_BACKFILL_V80 } from '../../../src/db/migrations/1700000000080-track-figures';
import { bruteForceBoard, bruteForceXp, readJournal } from './brute-force';

type Op =
  | { kind: 'buy'; who: number; market: number; side: 'YES' | 'NO'; amount: number; ask: number }
  | { kind: 'sell'; who: number; pick: number; fraction: number; bid: number }
  | { kind: 'resolve'; market: number; winner: 'YES' | 'NO' | 'VOID' }
  | { kind: 'advance'; hours: number };

const TRADERS = 4; // 0, 1 agents; 2, 3 people
const MARKETS = 6;
// Few distinct amounts and prices, so equal values (ties) are common.
const price = fc.oneof(
  fc.constantFrom(0.2, 0.25, 0.5, 0.8),
  fc.integer({ min: 1, max: 999_999 }).map((n) => n / 1e6),
);
const amount = fc.oneof(
  fc.constantFrom(10, 20, 50),
  fc.integer({ min: 1, max: 200_000_000 }).map((n) => n / 1e6),
);
const side = fc.constantFrom('YES' as const, 'NO' as const);
const who = fc.integer({ min: 0, max: TRADERS - 1 });
const market = fc.integer({ min: 0, max: MARKETS - 1 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('buy' as const), who, market, side, amount, ask: price }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('sell' as const), who, pick: fc.nat(), fraction: fc.constantFrom(0.5, 1), bid: price }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('resolve' as const), market, winner: fc.constantFrom('YES' as const, 'NO' as const, 'VOID' as const) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), hours: fc.integer({ min: 1, max: 96 }) }) },
);

const METRICS = ['pnl', 'volume', 'accuracy', 'trades'] as const;
const AUDIENCES = ['all', 'bots', 'everyone'] as const;

describe.each(backends())('leaderboards against a brute-force recomputation on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  // Sunday 27 January 2030: the histories cross week and month boundaries.
  const clock = new ManualClock(Date.parse('2030-01-27T20:00:00Z'));

  beforeAll(async () => {
    t = await startTestApp(backend, { prices, clock });
  });
  afterAll(async () => {
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
    await t.close();
  });

  async function person(): Promise<string> {
    const n = Math.random().toString(36).slice(2, 10);
    const u = await t.services.accounts.register({ email: `p-${n}@example.com`, password: 'password123', displayName: `P${n}`, isAgent: false }, clock.now());
    return u.id;
  }

  async function apply(op: Op, ids: string[], markets: SeededMarket[]): Promise<void> {
    const now = clock.now();
    if (op.kind === 'advance') return clock.advance(op.hours * HOUR);
    if (op.kind === 'resolve') {
      const m = markets[op.market]!;
      const st = await t.services.db.query<{ status: string }>('SELECT status FROM markets WHERE id = $1', [m.id]);
      if (st[0]!.status !== 'active') return;
      await resolveMarket(t.services.db, m.id, op.winner);
      await t.services.settlement.runOnce(now);
      return;
    }
    try {
      if (op.kind === 'buy') {
        const m = markets[op.market]!;
        const token = op.side === 'YES' ? m.yes : m.no;
        prices.set(token, op.ask, op.ask);
        await t.services.trading.buy(ids[op.who]!, { marketId: m.id, marketSlug: m.slug, tokenId: token, outcome: op.side, amount: op.amount }, now);
      } else {
        const open = (await t.services.trading.portfolio(ids[op.who]!)).positions.filter((p) => !p.isClosed);
        const pos = open[op.pick % Math.max(1, open.length)];
        if (!pos) return;
        prices.set(pos.tokenId, op.bid, op.bid);
        await t.services.trading.sell(ids[op.who]!, pos.id, op.fraction === 1 ? undefined : Math.floor(pos.quantity * 5e5) / 1e6 || undefined, now);
      }
    } catch (err) {
      // Short balance, a closed market, a buy too small for one share: refused and changed nothing.
      if (!(err instanceof AppError)) throw err;
    }
  }

  test("for random trading histories, every period × metric × audience board (and the caller's rank) equals the recomputation from the trades", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 5, maxLength: 30 }),
        // Before the end, each trader may take one more side in each market, so accuracy boards (5 settled) fill up.
        fc.array(fc.option(fc.record({ side, ask: price }), { freq: 3 }), { minLength: TRADERS * MARKETS, maxLength: TRADERS * MARKETS }),
        fc.array(fc.constantFrom('YES' as const, 'NO' as const, 'YES' as const, 'NO' as const, 'VOID' as const), { minLength: MARKETS, maxLength: MARKETS }),
        async (ops, lastBuys, finalWinners) => {
          const a0 = await registerAgent(t, 'Prop');
          const a1 = await registerAgent(t, 'Prop');
          const ids = [a0.id, a1.id, await person(), await person()];
          const markets: SeededMarket[] = [];
          for (let i = 0; i < MARKETS; i += 1) markets.push(await seedMarket(t.services.db));
          for (const op of ops) await apply(op, ids, markets);
          for (const [i, b] of lastBuys.entries()) {
            if (b) await apply({ kind: 'buy', who: i % TRADERS, market: Math.floor(i / TRADERS), side: b.side, amount: 5, ask: b.ask }, ids, markets);
          }
          // Resolve what is left, so accuracy boards have settled positions to rank.
          for (let i = 0; i < MARKETS; i += 1) await apply({ kind: 'resolve', market: i, winner: finalWinners[i]! }, ids, markets);

          const journal = await readJournal(t.services.db);
          const cards = new Map<string, { level: number; badges: string[] }>();
          const now = clock.now();
          for (const period of PERIODS) {
            for (const metric of METRICS) {
              for (const audience of AUDIENCES) {
                const res = await t.api.get('/api/leaderboard').query({ period, metric, audience, limit: 100 }).set('Authorization', `Bearer ${a0.apiKey}`);
                expect(res.status).toBe(200);
                const expected = bruteForceBoard(journal, { period, metric, audience, now });
                for (const e of res.body.leaderboard)
                  cards.set(e.user.id, { level: e.user.level, badges: e.user.badges.map((b: { name: string }) => b.name).sort() });
                const got = res.body.leaderboard.map((e: { rank: number; user: { id: string }; value: number }) => ({
                  rank: e.rank,
                  id: e.user.id,
                  value: e.value,
                }));
                expect({ period, metric, audience, rows: got }).toEqual({ period, metric, audience, rows: expected.slice(0, 100) });
                const mine = expected.find((e) => e.id === a0.id);
                expect({ period, metric, audience, currentUserRank: res.body.currentUserRank }).toEqual({
                  period,
                  metric,
                  audience,
                  currentUserRank: mine ? mine.rank : null,
                });
                // Every trader's own rank on a board of one row: below it, the rank comes from its own statement
                // (ties, traders not yet or no longer on the board, the period's bucket), not from the rows.
                for (const id of ids) {
                  const view = await t.services.trackRecord.leaderboard.get({ period, metric, audience, limit: 1, userId: id, now });
                  const own = expected.find((e) => e.id === id);
                  expect({ period, metric, audience, id, rank: view.currentUserRank }).toEqual({ period, metric, audience, id, rank: own ? own.rank : null });
                  expect(view.leaderboard.map((e) => e.isCurrentUser)).toEqual(expected.slice(0, 1).map((e) => e.id === id));
                }
              }
            }
          }
          // Each row's card (level, badges) is what the account's badges and its XP recomputed from the trades say.
          const xp = bruteForceXp(journal);
          const truth = await t.services.db.query<{ id: string; badges: string[] }>(
            'SELECT u.id, ARRAY(SELECT b.badge FROM user_badges b WHERE b.user_id = u.id) AS badges FROM users u WHERE u.id = ANY($1::uuid[])',
            [[...cards.keys()]],
          );
          for (const u of truth)
            expect({ id: u.id, card: cards.get(u.id) }).toEqual({
              id: u.id,
              card: { level: levelOf(xp.get(u.id) ?? 0).current, badges: u.badges.map((b) => badgeOf(b).name).sort() },
            });
          // And each trader's stats show exactly that XP.
          for (const id of ids) {
            const stats = await t.api.get('/api/user/stats').query({ userId: id });
            expect({ id, xp: stats.body.level.xp }).toEqual({ id, xp: xp.get(id) ?? 0 });
          }
          clock.advance(HOUR);
        },
      ),
      { numRuns: backend.name === 'pglite' ? 8 : 5 },
    );
  }, 600_000);

  test('the set-based backfill (migration and benchmark) recomputes exactly the aggregates the listener maintained', async () => {
    // The day state (today's progress and XP) is the listener's alone; everything the boards and stats read is compared.
    // Badges compare as sets: two earned by one event share a timestamp, so their order is arbitrary.
    const card = 'display_name, xp, (SELECT array_agg(x ORDER BY x) FROM unnest(badges) x) AS badges';
    const ranked = 'w_bucket, w_trades, w_volume, m_bucket, m_trades, m_volume, a_trades, a_volume';
    const activity = `user_id, is_agent, ${card}, ${ranked}, seq`;
    const figures = `user_id, ${ranked}, streak, last_trade_day, track_seq, (SELECT array_agg(x ORDER BY x) FROM unnest(badges) x) AS badges`;
    const results = `user_id, is_agent, w_bucket, w_pnl, w_settled, w_won, w_accuracy, m_bucket, m_pnl, m_settled, m_won, m_accuracy, a_pnl, a_settled, a_won, a_accuracy, a_closes, a_wins, a_profitable_sells`;
    const tables: Array<[string, string]> = [
      ['trader_activity', activity],
      ['track_figures', figures],
      ['trader_results', results],
      ['user_calibration', '*'],
    ];
    const rollback = new Error('rollback');
    // Every board row a copy of its figures row, as the backfill leaves them.
    await t.services.trackRecord.folder.sweep();
    const diff = await t.services.db
      .transaction(async (tx) => {
        for (const [table, cols] of tables) await tx.query(`CREATE TABLE live_${table} AS SELECT ${cols} FROM ${table}`);
        // The write counts start over at 1 with the backfill: compared as "written" (1) or not (0).
        await tx.query('UPDATE live_track_figures SET track_seq = least(track_seq, 1)');
        await tx.query('UPDATE live_trader_activity SET seq = least(seq, 1)');
        for (const [table] of tables) {
          if (table === 'track_figures') {
            await tx.query(`UPDATE track_figures SET w_bucket = NULL, w_trades = 0, w_volume = 0, m_bucket = NULL, m_trades = 0, m_volume = 0,
              a_trades = 0, a_volume = 0, streak = 0, last_trade_day = NULL, track_seq = 0, badges = '{}'`);
          } else await tx.query(`DELETE FROM ${table}`);
        }
        for (const sql of TRACK_RECORD_BACKFILL_V80) await tx.query(sql);
        const counts: Record<string, bigint> = {};
        for (const [table, cols] of tables) {
          const r = await tx.query<{ n: bigint; live: bigint }>(
            `SELECT (SELECT count(*) FROM ((SELECT ${cols} FROM ${table} EXCEPT SELECT * FROM live_${table})
                      UNION ALL (SELECT * FROM live_${table} EXCEPT SELECT ${cols} FROM ${table})) d) AS n,
                    (SELECT count(*) FROM live_${table}) AS live`,
          );
          counts[`${table} differing rows`] = r[0]!.n;
          counts[`${table} rows`] = r[0]!.live;
        }
        throw Object.assign(rollback, { counts });
      })
      .catch((err) => {
        if (err !== rollback) throw err;
        return (err as unknown as { counts: Record<string, bigint> }).counts;
      });
    for (const [table] of tables) {
      expect(diff[`${table} rows`]).toBeGreaterThan(0n);
      expect({ table, differing: diff[`${table} differing rows`] }).toEqual({ table, differing: 0n });
    }
  });
});
