import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Client, Pool, type PoolClient } from 'pg';
import {
  benchPool,
  createDatabase,
  load,
  median,
  round,
  startServiceProcess,
  type LoadFigures,
  type RequestSetup,
  pacedStreamsInChild,
} from './support/harness';
import { localPostgresCpuMs, processCpuMs } from './support/cpu-time';
import { RawHttpClient } from './support/raw-http-load';
import { openDatabase, type Queryable } from '../src/db/database';
import { testConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { createAppServer } from '../src/http/app-server';
import { TRACK_RECORD_BACKFILL_V80 } from '../src/db/migrations/1700000000080-track-figures';
import { rawBuy } from './support/raw-buy';
import { poolAnnouncer } from './support/raw-transaction';
import { LeaderboardService, type Audience, type Metric } from '../src/domain/track-record/leaderboard-service';
import type { Period } from '../src/domain/track-record/periods';
import { hashSecret } from '../src/auth/api-keys';
import { startService } from '../src/start';
import { TradingService } from '../src/domain/trading/trading-service';
import { TradeHooks } from '../src/domain/trading/trade-hooks';
import type { PriceService } from '../src/domain/trading/price-service';
import { recordTradeEvents } from '../src/domain/events/trade-events';
import { BoardFolder, FOLD_INTERVAL_MS } from '../src/domain/track-record/board-folder';
import type { Database } from '../src/db/database';
import { benchSetting, SMOKE } from './support/smoke';

/**
 * npm run bench:leaderboard — 100,000 accounts and 5,000,000 trades generated set-based in PostgreSQL, the
 * aggregates built by the migration's backfill (the listener's definitions, set-based), then:
 * 1. GET /api/leaderboard per metric over HTTP (autocannon against the service in its own process), each
 *    request cycling through period × audience, closed loop, and open loop at half the closed throughput in
 *    half-second slices taking turns with GET /health at the same pace (the floor);
 *    the same with an API key (currentUserRank for a mid-table trader);
 * 2. one trade's latency without and with the track-record maintenance, alternating in the same run on the
 *    same data: POST /api/trade through the whole service one at a time (the target; while boards are read, so
 *    the service folds, and while none is), and the bare buy
 *    transaction (BEGIN + the trade engine's execute() of a buy [with the track record as its listener]; COMMIT) one at a time and 8 at once.
 * Each figure is the median of RUNS runs. Last line: one JSON object with every figure.
 */
const ACCOUNTS = benchSetting('BENCH_ACCOUNTS', 100_000, 200);
const TRADES = benchSetting('BENCH_TRADES', 5_000_000, 2000);
const MARKETS = 2_000;
const SECONDS = benchSetting('BENCH_SECONDS', 8, 0.5);
const RUNS = benchSetting('BENCH_RUNS', 3, 1);
/**
 * The whole-service trade comparison: this many adjacent with/without pairs of this many seconds each. A run lasts two
 * fold intervals (one in smoke mode, whose figures are not read), so that most of its trades are folded at the service's own pace, beside them, and the fold after
 * it (`settle`, in its time) takes only its tail: in runs shorter than the interval, nearly every fold would be that
 * one, in series with the trades, which no service does.
 */
const TRADE_PAIRS = benchSetting('BENCH_TRADE_PAIRS', 50, 1);
const TRADE_PAIR_SECONDS = Number(process.env.BENCH_TRADE_PAIR_SECONDS ?? ((SMOKE ? 1 : 2) * FOLD_INTERVAL_MS) / 1000);
const CONNECTIONS = 10;
/** A board's paced run and its floor's take turns in slices this long. */
const FLOOR_SLICE_SECONDS = 0.5;
const TRADE_WORKERS = 8;

const METRICS: Metric[] = ['pnl', 'volume', 'accuracy', 'trades'];
const PERIODS: Period[] = ['weekly', 'monthly', 'alltime'];
const AUDIENCES: Audience[] = ['all', 'bots', 'everyone'];

const uuidSql = (prefix: string, expr: string) => `('00000000-0000-4000-${prefix}-' || lpad(to_hex(${expr}), 12, '0'))::uuid`;
const userUuid = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const t0 = Date.now();
  const out = await fn();
  log(`  ${label}: ${round((Date.now() - t0) / 1000, 1)} s`);
  return out;
}

/** Accounts, markets, positions and trades, all generated inside PostgreSQL. */
async function generate(c: Client): Promise<Record<string, number>> {
  const t0 = Date.now();
  await c.query(`SET maintenance_work_mem = '256MB'`);
  await c.query(`SET work_mem = '128MB'`);
  // Bulk load: foreign-key triggers off for this session, secondary indexes rebuilt once at the end.
  await c.query('SET session_replication_role = replica');
  const indexes = (
    await c.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('trades', 'trader_activity', 'trader_results') AND indexname NOT LIKE '%pkey'`,
    )
  ).rows;
  for (const i of indexes) await c.query(`DROP INDEX ${i.indexname}`);

  await timed(`${ACCOUNTS} accounts`, () =>
    c.query(
      `INSERT INTO users (id, email, password_hash, display_name, is_agent, referral_code, created_at, last_active_at)
       SELECT ${uuidSql('8000', 'i')}, 'trader' || i || '@bench.test', 'bench', 'Trader ' || i, i % 3 = 0, 'BENCH' || i, now() - interval '200 days', now()
       FROM generate_series(1, $1::int) i`,
      [ACCOUNTS],
    ),
  );
  // Each account's cash row and track record (the account module opens both with the account).
  await c.query('INSERT INTO cash_balances (user_id, balance_micro) SELECT id, 1000000000 FROM users');
  await c.query(`INSERT INTO track_figures (user_id, xp) SELECT id, (row_number() OVER (ORDER BY id) * 7919) % 4000 FROM users`);
  await c.query(
    `INSERT INTO transfers (debit_account, credit_account, asset, amount_micro, kind, ref, created_at)
     SELECT 'grants', 'cash:' || id, 'USD', 1000000000, 'grant', 'registration', created_at FROM users`,
  );
  await timed(`${MARKETS} markets`, async () => {
    await c.query(
      `INSERT INTO markets (id, slug, question, category, volume, end_date, status, source)
       SELECT 'bench-' || i, 'bench-market-' || i, 'Bench question ' || i || '?', 'Bench', i, now() + interval '30 days', 'active', 'simulated'
       FROM generate_series(1, ${MARKETS}) i`,
    );
    await c.query(
      `INSERT INTO market_tokens (token_id, market_id, outcome, label, price_micro, bid_micro, ask_micro, price_at)
       SELECT 'bench-' || i || '-' || o, 'bench-' || i, upper(o), initcap(o), 500000, 500000, 500000, now()
       FROM generate_series(1, ${MARKETS}) i, (VALUES ('yes'), ('no')) v(o)`,
    );
  });
  const positions = Math.ceil(TRADES / 5);
  // Ten positions per account in ten distinct markets; closed, so new buys in the trade bench open fresh ones.
  await timed(`${positions} positions`, () =>
    c.query(
      `INSERT INTO positions (id, user_id, market_id, token_id, outcome, quantity_micro, cost_micro, is_closed, created_at, updated_at, closed_at)
       SELECT ${uuidSql('9000', 'p')}, ${uuidSql('8000', `1 + (p - 1) % ${ACCOUNTS}`)}, 'bench-' || mk, 'bench-' || mk || '-' || lower(o), o, 0, 0, true, now(), now(), now()
       FROM (SELECT p, 1 + ((1 + (p - 1) % ${ACCOUNTS}) * 13 + ((p - 1) / ${ACCOUNTS}) * 197) % ${MARKETS} AS mk,
                    CASE WHEN p % 2 = 0 THEN 'YES' ELSE 'NO' END AS o
             FROM generate_series(1, $1::int) p) s`,
      [positions],
    ),
  );
  // Five trades per position over the last 120 days: three buys, a sale, then a sale or a settlement
  // (won, lost or void); sizes, PnL and times spread by multiplicative hashes of the row number.
  await timed(`${TRADES} trades`, () =>
    c.query(
      `INSERT INTO trades (id, user_id, position_id, market_id, token_id, side, quantity_micro, price_micro, cash_micro, realized_pnl_micro, created_at)
       SELECT ${uuidSql('a000', 'g')}, ${uuidSql('8000', `1 + (p - 1) % ${ACCOUNTS}`)}, ${uuidSql('9000', 'p')}, 'bench-' || mk,
              'bench-' || mk || CASE WHEN p % 2 = 0 THEN '-yes' ELSE '-no' END, x.side, x.qty, x.price, x.cash, x.pnl,
              now() - ((g::bigint * 7919 + 86400 * (g % 97)) % (120 * 86400)) * interval '1 second'
       FROM (SELECT g, 1 + g / 5 AS p, 1 + ((1 + (g / 5) % ${ACCOUNTS}) * 13 + ((g / 5) / ${ACCOUNTS}) * 197) % ${MARKETS} AS mk
             FROM generate_series(0, $1::int - 1) g) s
       CROSS JOIN LATERAL (
         SELECT CASE WHEN g % 5 < 3 THEN 'BUY' WHEN g % 5 = 3 OR (g / 5) % 3 = 0 THEN 'SELL' ELSE 'SETTLE' END AS side,
                (1 + (g::bigint * 7919) % 500) * 1000000 AS amount,
                ((g::bigint * 104729) % 2001 - 1000) * 10000 AS spnl,
                1000000 + (g::bigint * 6007) % 98000000 AS cost,
                (g::bigint * 31) % 10 AS luck
       ) h
       CROSS JOIN LATERAL (
         SELECT h.side,
                CASE h.side WHEN 'SETTLE' THEN 100000000 ELSE h.amount * 2 END AS qty,
                CASE h.side WHEN 'SETTLE' THEN CASE WHEN h.luck < 5 THEN 1000000 WHEN h.luck < 9 THEN 0 ELSE 500000 END ELSE 500000 END AS price,
                CASE h.side WHEN 'BUY' THEN -h.amount WHEN 'SELL' THEN h.amount
                            ELSE CASE WHEN h.luck < 5 THEN 100000000 WHEN h.luck < 9 THEN 0 ELSE 50000000 END END AS cash,
                CASE h.side WHEN 'BUY' THEN 0 WHEN 'SELL' THEN h.spnl
                            ELSE CASE WHEN h.luck < 5 THEN 100000000 WHEN h.luck < 9 THEN 0 ELSE 50000000 END - h.cost END AS pnl
       ) x`,
      [TRADES],
    ),
  );
  await c.query('SET session_replication_role = DEFAULT');
  // The aggregates, built set-based with the migration's backfill (the listener's per-event definitions).
  await timed('aggregates (backfill)', async () => {
    for (const sql of TRACK_RECORD_BACKFILL_V80) await c.query(sql);
  });
  await timed('indexes', async () => {
    for (const i of indexes) await c.query(i.indexdef);
  });
  await timed('vacuum analyze', () => c.query('VACUUM ANALYZE'));
  const ranked = (
    await c.query<Record<string, string>>(
      `SELECT (SELECT count(*) FROM trader_activity WHERE w_bucket = date_trunc('week', now() AT TIME ZONE 'UTC')::date)::text AS w,
              (SELECT count(*) FROM trader_activity WHERE m_bucket = date_trunc('month', now() AT TIME ZONE 'UTC')::date)::text AS m,
              (SELECT count(*) FROM trader_activity)::text AS a,
              (SELECT count(*) FROM trader_results)::text AS r,
              (SELECT count(*) FROM trader_results WHERE a_accuracy IS NOT NULL)::text AS acc`,
    )
  ).rows[0]!;
  return {
    generateSeconds: round((Date.now() - t0) / 1000, 1),
    weeklyTraders: Number(ranked.w),
    monthlyTraders: Number(ranked.m),
    alltimeTraders: Number(ranked.a),
    tradersWithResults: Number(ranked.r),
    alltimeAccuracyRanked: Number(ranked.acc),
  };
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

function countSeqScans(node: PlanNode, relation: string): number {
  const own = node['Node Type'] === 'Seq Scan' && node['Relation Name'] === relation ? 1 : 0;
  return own + (node.Plans ?? []).reduce((s, p) => s + countSeqScans(p, relation), 0);
}

/** The database side of each board query and caller's rank: their plans must walk an index, never scan trader_stats. */
async function explainBoards(pool: Pool): Promise<{ seqScans: number; maxExecutionMs: number }> {
  let seqScans = 0;
  let maxExecutionMs = 0;
  const captured: Array<{ sql: string; params?: unknown[] }> = [];
  const capture: Queryable = {
    async query(sql: string, params?: unknown[]) {
      // The board cache's commit watermark is read before each board: answered here, not captured.
      if (sql.includes('pg_current_snapshot')) return [{ mark: '' }] as never[];
      captured.push({ sql, params });
      return [] as never[];
    },
    notify() {
      throw new Error('a read announces nothing');
    },
  };
  const service = new LeaderboardService(capture);
  for (const metric of METRICS) {
    for (const period of PERIODS) {
      for (const audience of AUDIENCES) {
        // A signed-in caller's request: the shared board, and the caller's rank.
        captured.length = 0;
        await service.get({ metric, period, audience, limit: 100, userId: userUuid(Math.floor(ACCOUNTS / 2)), now: new Date() });
        for (const q of captured) {
          const r = await pool.query<{ 'QUERY PLAN': Array<{ 'Execution Time': number; Plan: PlanNode }> }>(
            `EXPLAIN (ANALYZE, FORMAT JSON) ${q.sql}`,
            q.params,
          );
          const plan = r.rows[0]!['QUERY PLAN'][0]!;
          seqScans += countSeqScans(plan.Plan, 'trader_activity') + countSeqScans(plan.Plan, 'trader_results');
          maxExecutionMs = Math.max(maxExecutionMs, plan['Execution Time']);
        }
      }
    }
  }
  return { seqScans, maxExecutionMs: round(maxExecutionMs, 3) };
}

/** Requests cycling through the 9 period × audience boards of a metric (with a key: the caller's rank too). */
function boardSetup(metric: Metric, key?: string): RequestSetup {
  const combos = PERIODS.flatMap((p) => AUDIENCES.map((a) => `/api/leaderboard?period=${p}&metric=${metric}&audience=${a}&limit=100`));
  let n = 0;
  return () => ({ path: combos[n++ % combos.length]!, headers: key ? { authorization: `Bearer ${key}` } : ({} as Record<string, string>) });
}

interface BoardRun {
  closed: LoadFigures;
  open: LoadFigures;
  floor: LoadFigures;
  /** The median, over the run's turns, of the board's p99 in its half second over the floor's in the next. */
  p99ToFloor: number;
}

async function boardLoad(baseUrl: string, metric: Metric, key?: string): Promise<BoardRun> {
  const setup = boardSetup(metric, key);
  const closed = await load(baseUrl, { connections: CONNECTIONS, seconds: SECONDS, setup });
  // Evenly paced (a true open loop); autocannon's overallRate sends each connection's quota in one burst per second.
  // The floor in the same run: the same service's GET /health (no database, no work) paced at the same rate, in
  // half-second slices alternating with the board's, SECONDS of each, so that both meet the machine's same moments.
  const [open, floor] = await pacedStreamsInChild(baseUrl, {
    rate: closed.rps / 2,
    seconds: 2 * SECONDS,
    connections: CONNECTIONS,
    sliceSeconds: FLOOR_SLICE_SECONDS,
    streams: [setup, () => ({ path: '/health' })],
  });
  // A stall of the VM (tens of ms, several a run on a shared machine) sets the p99 of whichever requests it meets:
  // pooled over a run, it decides the board's ratio to its floor by which side it fell on. Slice by slice, the
  // stalls fall on few turns, and the median turn compares the two as the machine serves them most of the time.
  const ratios = open!.sliceP99.slice(0, floor!.sliceP99.length).map((p, r) => p / floor!.sliceP99[r]!);
  return { closed, open: open!, floor: floor!, p99ToFloor: median(ratios) };
}

function medianFigures(runs: BoardRun[]) {
  const pick = (k: 'closed' | 'open' | 'floor', f: keyof LoadFigures) => median(runs.map((r) => r[k][f]));
  return {
    rps: round(pick('closed', 'rps')),
    p50: pick('closed', 'p50'),
    p99: pick('closed', 'p99'),
    openRate: round(pick('closed', 'rps') / 2),
    openP50: round(pick('open', 'p50')),
    openP99: round(pick('open', 'p99')),
    healthFloorP50: round(pick('floor', 'p50')),
    healthFloorP99: round(pick('floor', 'p99')),
    p99ToFloor: round(median(runs.map((r) => r.p99ToFloor)), 2),
    non2xx: runs.reduce((s, r) => s + r.closed.non2xx + r.open.non2xx + r.floor.non2xx, 0),
  };
}

function percentile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

interface TradeFigures {
  tps: number;
  p50: number;
  p99: number;
  mean: number;
}

/**
 * Keeps `folder` folding on its timer, as every process does while another reads boards: says to it what a reader's
 * word says, every second (a board read itself would add its own cost to whichever side of a comparison it fell on).
 * Returns the function that stops it.
 */
function keepWatching(folder: BoardFolder): () => void {
  folder.watch();
  const timer = setInterval(() => folder.watch(), 1000);
  return () => clearInterval(timer);
}

/**
 * Buys for SECONDS with `workers` workers, each one transaction: the trade engine's execute() of a buy, with the track record when `track`,
 * with the board folder folding the traders' pending figures as the service's does (its cost is the track record's).
 */
async function tradeRun(pool: Pool, track: boolean, workers: number, db: Database): Promise<TradeFigures> {
  const folder = new BoardFolder(db);
  // These figures include the folds, as while boards are read.
  if (track) await folder.start();
  const stopWatching = keepWatching(folder);
  const lat: number[] = [];
  const until = Date.now() + SECONDS * 1000;
  let seed = track ? 7 : 3;
  const rand = (n: number) => {
    seed = (seed * 48271) % 2147483647;
    return seed % n;
  };
  const worker = async () => {
    const client: PoolClient = await pool.connect();
    try {
      while (Date.now() < until) {
        const user = userUuid(1 + rand(ACCOUNTS));
        const mk = 1 + rand(MARKETS);
        const side = rand(2) ? 'YES' : 'NO';
        const now = new Date();
        const token = `bench-${mk}-${side.toLowerCase()}`;
        const t0 = process.hrtime.bigint();
        await rawBuy(
          client,
          {
            userId: user,
            marketId: `bench-${mk}`,
            tokenId: token,
            amountMicro: 1_000_000n,
            quantityMicro: 2_000_000n,
            priceMicro: 500_000n,
            outcome: side,
            at: now,
          },
          // The track record's cost alone: no events on either side.
          { track, events: false, announcer: poolAnnouncer(pool) },
          (userId, seq) => folder.mark(userId, seq),
        );
        lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    } finally {
      client.release();
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  stopWatching();
  await folder.stop();
  return {
    tps: round(lat.length / SECONDS),
    p50: round(percentile(lat, 0.5), 3),
    p99: round(percentile(lat, 0.99), 3),
    mean: round(lat.reduce((a, b) => a + b, 0) / lat.length, 3),
  };
}

/** Every bench token trades at 0.5 (the bench markets are not in the simulated feed). */
const fixedPrices: PriceService = {
  live: async (tokenId) => ({ tokenId, bidMicro: 500_000n, askMicro: 500_000n, midMicro: 500_000n, asOf: new Date(), source: 'simulated' }),
};

/** What one closed run did. */
interface ClosedRun {
  count: number;
  non2xx: number;
  /** The run's time, ms. */
  ms: number;
  /** Each request's latency, ms. */
  lat: number[];
}

/** One connection's closed loop for `seconds`: requests sent one after the other, each as soon as the last answered. */
async function closedRun(client: RawHttpClient, seconds: number, setup: RequestSetup): Promise<ClosedRun> {
  let non2xx = 0;
  const lat: number[] = [];
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  for (let t = t0; t < until;) {
    const status = await client.request(setup({}));
    const now = performance.now();
    lat.push(now - t);
    t = now;
    if (status < 200 || status >= 300) non2xx += 1;
  }
  return { count: lat.length, non2xx, ms: performance.now() - t0, lat };
}

/** WAL written, from pg_stat_wal: bytes, full-page images, and flushes to disk (fsync and the like). */
type WalCounts = { bytes: number; fpi: number; syncs: number };

/**
 * POST /api/trade one at a time against the service with the track record and the one without, in TRADE_PAIRS adjacent
 * pairs of short runs. `settle`, when given, runs after each run of the service with the track record and its time
 * counts in that run: what the run's trades left to do in the background (the fold of their traders, while boards are
 * read) is then paid by the run that left it, never by the next run, whichever service that is.
 */
async function tradePairs(withUrl: string, withoutUrl: string, setup: RequestSetup, wal: () => Promise<WalCounts>, settle?: () => Promise<void>) {
  // Short runs in adjacent pairs, in alternating order, so the machine's drift falls on both sides of each pair
  // alike; the ratio is the median of the pairs' ratios (its spread is printed too). Many short pairs: a slow spell
  // of a shared VM spoils the few it falls on, and the median passes them by.
  // CPU per trade of each run: this process (both services and the load generator, alike on both sides) and the
  // local PostgreSQL's processes (null when the database is elsewhere).
  const clients = { with: rawClient(withUrl), without: rawClient(withoutUrl) };
  await Promise.all([clients.with.ready(), clients.without.ready()]);
  const runs: Record<'with' | 'without', ClosedRun[]> = { with: [], without: [] };
  const cpu: Record<'with' | 'without', Array<{ node: number; pg: number | null }>> = { with: [], without: [] };
  const walPerTrade: Record<'with' | 'without', WalCounts[]> = { with: [], without: [] };
  try {
    for (let r = 0; r < TRADE_PAIRS; r += 1) {
      const order = r % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const);
      for (const side of order) {
        const wal0 = await wal();
        const [node0, pg0] = [processCpuMs(), localPostgresCpuMs()];
        const run = await closedRun(clients[side], TRADE_PAIR_SECONDS, setup);
        if (side === 'with' && settle) {
          const t0 = performance.now();
          await settle();
          run.ms += performance.now() - t0;
        }
        const [node1, pg1] = [processCpuMs(), localPostgresCpuMs()];
        const trades = Math.max(1, run.count);
        const wal1 = await wal();
        walPerTrade[side].push({ bytes: (wal1.bytes - wal0.bytes) / trades, fpi: (wal1.fpi - wal0.fpi) / trades, syncs: (wal1.syncs - wal0.syncs) / trades });
        cpu[side].push({ node: (node1 - node0) / trades, pg: pg0 === null || pg1 === null ? null : (pg1 - pg0) / trades });
        runs[side].push(run);
      }
    }
  } finally {
    clients.with.close();
    clients.without.close();
  }
  const cpuPerTrade = (side: 'with' | 'without') => {
    const pg = cpu[side].map((c) => c.pg);
    return {
      nodeMs: round(median(cpu[side].map((c) => c.node)), 4),
      postgresMs: pg.every((x): x is number => x !== null) ? round(median(pg), 4) : null,
    };
  };
  const walOf = (side: 'with' | 'without') => ({
    bytes: round(median(walPerTrade[side].map((w) => w.bytes))),
    fpi: round(median(walPerTrade[side].map((w) => w.fpi)), 3),
    syncs: round(median(walPerTrade[side].map((w) => w.syncs)), 3),
  });
  // Mean latency of a closed loop of one connection: the run's time over its trades.
  const meanMs = (x: { count: number; ms: number }) => x.ms / Math.max(1, x.count);
  const med = (xs: ClosedRun[]) => {
    const lat = xs.flatMap((x) => x.lat);
    return {
      rps: round(median(xs.map((x) => (1000 * x.count) / x.ms))),
      meanMs: round(median(xs.map(meanMs)), 3),
      p50: round(percentile(lat, 0.5), 2),
      p99: round(percentile(lat, 0.99), 2),
      non2xx: xs.reduce((a, x) => a + x.non2xx, 0),
    };
  };
  const pairRatios = runs.with.map((w, i) => meanMs(w) / meanMs(runs.without[i]!)).sort((x, y) => x - y);
  return {
    without: med(runs.without),
    with: med(runs.with),
    ratioMean: round(median(pairRatios), 3),
    ratioCi95: medianCi95(pairRatios),
    pairRatioSpread: { min: round(pairRatios[0]!, 3), max: round(pairRatios[pairRatios.length - 1]!, 3) },
    cpuPerTrade: { without: cpuPerTrade('without'), with: cpuPerTrade('with') },
    walPerTrade: { without: walOf('without'), with: walOf('with') },
  };
}

/** A ratio as the percent it adds, to a tenth. */
const pct = (ratio: number) => round((ratio - 1) * 100, 1);

/**
 * A 95 % confidence interval of the median of `sorted` (ascending) that assumes nothing of their distribution: the
 * order statistics n/2 ∓ 0.98·√n (the binomial's normal approximation). A pair's ratio swings by tens of percent on
 * this shared VM, so the median's own uncertainty is printed beside it.
 */
function medianCi95(sorted: number[]): { low: number; high: number } {
  const n = sorted.length;
  const k = Math.max(0, Math.floor(n / 2 - 0.98 * Math.sqrt(n)));
  return { low: round(sorted[k]!, 3), high: round(sorted[Math.min(n - 1, n - 1 - k)]!, 3) };
}

function rawClient(baseUrl: string): RawHttpClient {
  const url = new URL(baseUrl);
  return new RawHttpClient(url.hostname, Number(url.port), 1);
}

/**
 * POST /api/trade one at a time (one connection), through the whole service in this process: once as built
 * (the track-record listener in every trade's transaction) and once with a TradingService whose hooks are
 * empty, in TRADE_PAIRS adjacent pairs, on the same database. This is the latency of one trade as a client sees it.
 */
async function httpTrades(url: string) {
  const config = testConfig({ DATABASE_URL: url, DB_POOL_SIZE: 10, RATE_LIMIT_TRADE_PER_MIN: 1e9, RATE_LIMIT_API_PER_MIN: 1e9, LOG_LEVEL: 'silent' });
  const logger = createLogger('silent');
  const tracked = await startService(config, logger, { prices: fixedPrices, background: false });
  const bare = await startService(config, logger, { prices: fixedPrices, background: false });
  // The bare service keeps every other trade listener (the account's event log): only the track record is left out.
  const hooks = new TradeHooks();
  recordTradeEvents(hooks);
  bare.services.trading = new TradingService(bare.services.db, fixedPrices, hooks);
  const servers = [createAppServer(tracked.app), createAppServer(bare.app)];
  for (const srv of servers) await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const [withUrl, withoutUrl] = servers.map((srv) => `http://127.0.0.1:${(srv.address() as AddressInfo).port}`);
  // The WAL the runs write, from the server's own counters (read on a connection of its own, which writes none).
  const walClient = new Client({ connectionString: url });
  await walClient.connect();
  try {
    // 300 agents (every third account is one) with known keys, topped up to 10,000 dollars (a ledger grant each, in one statement)
    // before each of the three phases: a phase spends up to some 800 dollars of each at 1,200 trades a second, and
    // on a kept database (BENCH_REUSE_DB) earlier runs spent theirs, after which every trade was a refusal.
    // (Fewer on a small generated set, as smoke mode's: only accounts that exist can trade.)
    const keys = Array.from({ length: Math.min(300, Math.floor(ACCOUNTS / 3)) }, (_, i) => `svc_e${(i + 1).toString(16).padStart(31, '0')}`);
    const agents = [keys.map((_, i) => userUuid(3 * (i + 1))), keys.map(hashSecret)];
    const topUp = () =>
      tracked.services.db.query(
        `WITH agent AS (SELECT * FROM unnest($1::uuid[], $2::text[]) AS a(id, key_hash)),
         grant_ AS (
           INSERT INTO transfers (debit_account, credit_account, asset, amount_micro, kind, ref, created_at)
           SELECT 'grants', 'cash:' || c.user_id, 'USD', 10000000000 - c.balance_micro, 'grant', 'bench top-up', now() FROM cash_balances c JOIN agent a ON a.id = c.user_id
           WHERE c.balance_micro < 10000000000
         ),
         cash AS (UPDATE cash_balances c SET balance_micro = greatest(c.balance_micro, 10000000000) FROM agent a WHERE c.user_id = a.id)
         UPDATE users u SET api_key_hash = a.key_hash FROM agent a WHERE u.id = a.id`,
        agents,
      );
    let n = 0;
    const setup: RequestSetup = () => {
      n += 1;
      const mk = 1 + ((n * 7919) % MARKETS);
      const yes = n % 2 === 0;
      return {
        method: 'POST',
        path: '/api/trade',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[(n * 31) % keys.length]}` },
        body: JSON.stringify({
          marketId: `bench-${mk}`,
          marketSlug: `bench-market-${mk}`,
          tokenId: `bench-${mk}-${yes ? 'yes' : 'no'}`,
          outcome: yes ? 'YES' : 'NO',
          amount: 1,
        }),
      };
    };
    const wal = async (): Promise<WalCounts> => {
      const [r] = (
        await walClient.query<{ bytes: string; fpi: string; syncs: string }>('SELECT wal_bytes AS bytes, wal_fpi AS fpi, wal_sync AS syncs FROM pg_stat_wal')
      ).rows;
      return { bytes: Number(r!.bytes), fpi: Number(r!.fpi), syncs: Number(r!.syncs) };
    };
    // While boards are read somewhere, every process folds its trades on its timer.
    const folder = tracked.services.trackRecord.folder;
    const stopWatching = keepWatching(folder);
    let boardsRead;
    await topUp();
    try {
      // A run's trades since its process's last fold are folded after it, in its time.
      boardsRead = await tradePairs(withUrl!, withoutUrl!, setup, wal, () => folder.flush());
    } finally {
      stopWatching();
    }
    // Then as most of the time goes by when no one reads a board: the folder stops folding once its last word is
    // WATCH_MS old (its 30-second sweep still runs, and is counted).
    while (folder.watched) await new Promise((resolve) => setTimeout(resolve, 100));
    await topUp();
    const idle = await tradePairs(withUrl!, withoutUrl!, setup, wal);
    // The control: the same pairs with the track record left out of both services (the first one's trades then go
    // through a TradingService like the second's). Its ratio is this instrument's own error: what a ratio shows
    // when there is nothing to measure.
    const tracking = tracked.services.trading;
    tracked.services.trading = new TradingService(tracked.services.db, fixedPrices, hooks);
    let control;
    await topUp();
    try {
      control = await tradePairs(withUrl!, withoutUrl!, setup, wal);
    } finally {
      tracked.services.trading = tracking;
    }
    return {
      connections: 1,
      pairs: TRADE_PAIRS,
      pairSeconds: TRADE_PAIR_SECONDS,
      ...idle,
      boardsRead,
      control: { ratioMean: control.ratioMean, ratioCi95: control.ratioCi95 },
    };
  } finally {
    await walClient.end();
    for (const srv of servers) await new Promise<void>((resolve) => srv.close(() => resolve()));
    await tracked.stop();
    await bare.stop();
  }
}

/**
 * The boards over HTTP: their query plans, then each metric closed and open loop against the service in its own process
 * (with `GET /health` paced at the same rate as the floor), and the profit board with a mid-table agent's API key.
 */
async function boardFigures(
  pool: Pool,
  url: string,
): Promise<{ plans: Awaited<ReturnType<typeof explainBoards>>; boards: Record<string, unknown>; auth: ReturnType<typeof medianFigures> }> {
  const plans = await explainBoards(pool);
  log(
    `query plans (36 boards and a caller's rank on each): ${plans.seqScans} sequential scans of the aggregate tables; slowest execution ${plans.maxExecutionMs} ms`,
  );

  // A mid-table agent (user 50,001 is an agent: i % 3 = 0) for the authenticated figures.
  const key = `svc_${'b'.repeat(32)}`;
  const mid = 3 * Math.floor(ACCOUNTS / 6);
  await pool.query('UPDATE users SET api_key_hash = $2 WHERE id = $1', [userUuid(mid), hashSecret(key)]);

  const service = await startServiceProcess({ DATABASE_URL: url, DB_POOL_SIZE: '10', RATE_LIMIT_API_PER_MIN: '100000000', MARKET_SYNC_INTERVAL_S: '86400' });
  try {
    const boards: Record<string, unknown> = {};
    // Warm-up (JIT, caches, connections), not measured.
    for (const metric of METRICS) await load(service.baseUrl, { connections: CONNECTIONS, seconds: SMOKE ? 0.5 : 2, setup: boardSetup(metric) });
    for (const metric of METRICS) {
      const runs = [];
      for (let r = 0; r < RUNS; r += 1) runs.push(await boardLoad(service.baseUrl, metric));
      const m = medianFigures(runs);
      boards[metric] = m;
      log(
        `GET /api/leaderboard metric=${metric} (9 period × audience, limit 100): ${m.rps} req/s, closed p50 ${m.p50} ms p99 ${m.p99} ms; open loop at ${m.openRate}/s p50 ${m.openP50} ms p99 ${m.openP99} ms; ` +
          `floor (GET /health at the same rate, in turns) p50 ${m.healthFloorP50} ms p99 ${m.healthFloorP99} ms; p99 ${m.p99ToFloor}x the floor's (median turn); non-2xx ${m.non2xx}`,
      );
    }
    const authRuns = [];
    for (let r = 0; r < RUNS; r += 1) authRuns.push(await boardLoad(service.baseUrl, 'pnl', key));
    const auth = medianFigures(authRuns);
    boards.pnlAuthenticated = auth;
    log(
      `GET /api/leaderboard metric=pnl with an API key (currentUserRank of a mid-table agent): ${auth.rps} req/s, closed p50 ${auth.p50} ms p99 ${auth.p99} ms; open loop p50 ${auth.openP50} ms p99 ${auth.openP99} ms; floor p99 ${auth.healthFloorP99} ms (pooled ${round(auth.openP99 / auth.healthFloorP99, 2)}x the floor; median turn ${auth.p99ToFloor}x)`,
    );
    return { plans, boards, auth };
  } finally {
    await service.stop();
  }
}

async function main(): Promise<void> {
  // BENCH_REUSE_DB=<url> runs on a database an earlier run kept (BENCH_KEEP_DB=1), skipping the two minutes of
  // generating it; its trades table then holds the earlier runs' bench trades too.
  const reuse = process.env.BENCH_REUSE_DB;
  const db = reuse ? { url: reuse, drop: async () => {} } : await createDatabase('bench_board');
  const figures: Record<string, unknown> = { accounts: ACCOUNTS, trades: TRADES, seconds: SECONDS, runs: RUNS, connections: CONNECTIONS };
  const pool = benchPool(db.url, TRADE_WORKERS + 2);
  try {
    log(`leaderboard bench: ${ACCOUNTS} accounts, ${TRADES} trades, PostgreSQL ${db.url.replace(/\/\/[^@]*@/, '//')}`);
    const migrated = await openDatabase(testConfig({ DATABASE_URL: db.url }), createLogger('silent'));
    await migrated.close();
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      if (!reuse) Object.assign(figures, await generate(c));
    } finally {
      await c.end();
    }
    if (reuse) {
      // Every run rewrites these rows; a PostgreSQL without autovacuum (this machine's has it off) would leave each
      // run a table of dead rows whose pages have no room for the next run's heap-only updates, so that the track
      // record's upkeep grew from run to run on a kept database.
      await pool.query('VACUUM (ANALYZE) trader_activity, trader_results, users, positions');
      log('reusing the kept database (BENCH_REUSE_DB), its rewritten tables vacuumed');
    } else
      log(
        `generated in ${figures.generateSeconds} s; traders on the boards: this week ${figures.weeklyTraders}, this month ${figures.monthlyTraders}, all time ${figures.alltimeTraders} (${figures.tradersWithResults} with realized results, ${figures.alltimeAccuracyRanked} ranked on accuracy)`,
      );

    // BENCH_ONLY_UPKEEP=1 measures the trade's upkeep alone (with BENCH_REUSE_DB, a few minutes instead of ten).
    const measured = process.env.BENCH_ONLY_UPKEEP === '1' ? undefined : await boardFigures(pool, db.url);
    if (measured) Object.assign(figures, { plans: measured.plans, leaderboard: measured.boards });

    // Trade latency without and with the aggregate maintenance, alternating on the same data: one trade at a
    // time (the database transaction alone, the strictest ratio), then TRADE_WORKERS at once (the CPU it costs at saturation).
    const trade: Record<string, unknown> = {};
    const overHttp = await httpTrades(db.url);
    trade.httpOneAtATime = overHttp;
    const h = overHttp;
    for (const [label, p] of [
      ['while boards are read (every process folds its trades)', h.boardsRead],
      ['while no board is read (no fold but the 30-second sweep)', h],
    ] as const) {
      // A refused trade (no cash left, say) is not the trade this measures.
      if (p.without.non2xx + p.with.non2xx > 0) throw new Error(`${p.without.non2xx + p.with.non2xx} trades were refused: the upkeep figures mean nothing`);
      log(
        `POST /api/trade one at a time (whole service, ${TRADE_PAIRS} pairs of ${TRADE_PAIR_SECONDS} s), ${label}: without track record p50 ${p.without.p50} ms p99 ${p.without.p99} ms (${p.without.rps}/s); ` +
          `with p50 ${p.with.p50} ms p99 ${p.with.p99} ms (${p.with.rps}/s); maintenance adds ${round((p.ratioMean - 1) * 100, 1)} % (median of the pairs' mean-latency ratios, ` +
          `95 % interval ${pct(p.ratioCi95.low)} to ${pct(p.ratioCi95.high)} %; pairs ${pct(p.pairRatioSpread.min)} to ${pct(p.pairRatioSpread.max)} %)`,
      );
      const { with: cw, without: co } = p.cpuPerTrade;
      log(
        `  CPU per trade (median of the runs): this process ${co.nodeMs} → ${cw.nodeMs} ms` +
          (co.postgresMs !== null && cw.postgresMs !== null ? `, local PostgreSQL ${co.postgresMs} → ${cw.postgresMs} ms` : ''),
      );
      const { with: ww, without: wo } = p.walPerTrade;
      log(`  WAL per trade (median of the runs): ${wo.bytes} → ${ww.bytes} bytes, full-page images ${wo.fpi} → ${ww.fpi}, flushes ${wo.syncs} → ${ww.syncs}`);
    }
    log(
      `control, the same pairs with the track record in neither service: ${pct(h.control.ratioMean)} % (95 % interval ${pct(h.control.ratioCi95.low)} to ${pct(h.control.ratioCi95.high)} %)`,
    );
    let oneRatio = 0;
    const folderDb = await openDatabase(testConfig({ DATABASE_URL: db.url, DB_POOL_SIZE: 2 }), createLogger('silent'));
    for (const workers of [1, TRADE_WORKERS]) {
      const without: TradeFigures[] = [];
      const withTrack: TradeFigures[] = [];
      for (let r = 0; r < RUNS; r += 1) {
        without.push(await tradeRun(pool, false, workers, folderDb));
        withTrack.push(await tradeRun(pool, true, workers, folderDb));
      }
      const med = (xs: TradeFigures[]): TradeFigures => ({
        tps: median(xs.map((x) => x.tps)),
        p50: median(xs.map((x) => x.p50)),
        p99: median(xs.map((x) => x.p99)),
        mean: median(xs.map((x) => x.mean)),
      });
      const a = med(without);
      const b = med(withTrack);
      const f = { workers, without: a, with: b, ratioP50: round(b.p50 / a.p50, 3), ratioMean: round(b.mean / a.mean, 3) };
      if (workers === 1) oneRatio = f.ratioMean;
      trade[workers === 1 ? 'oneAtATime' : 'saturated'] = f;
      log(
        `buy transaction, ${workers} worker(s): without track record p50 ${a.p50} ms p99 ${a.p99} ms (${a.tps} tps); with p50 ${b.p50} ms p99 ${b.p99} ms (${b.tps} tps); ` +
          `maintenance adds ${round((f.ratioMean - 1) * 100, 1)} % (mean), ${round((f.ratioP50 - 1) * 100, 1)} % (p50)`,
      );
    }
    await folderDb.close();
    figures.trade = trade;

    const maintenance = {
      maintenanceMaxRatio: 1.1,
      // No board read anywhere (most of the time), and boards read (each process folding its trades): both within.
      maintenanceRatioHttp: h.ratioMean,
      maintenanceRatioHttpBoardsRead: h.boardsRead.ratioMean,
      // What the same instrument shows with nothing to measure (both services without the track record).
      maintenanceRatioHttpControl: h.control.ratioMean,
      maintenanceRatioSqlOneAtATime: oneRatio,
      maintenanceMet: h.ratioMean <= 1.1 && h.boardsRead.ratioMean <= 1.1,
    };
    if (!measured) figures.targets = maintenance;
    else {
      const { boards, auth } = measured;
      const worstOpenP99 = Math.max(...METRICS.map((m) => (boards[m] as { openP99: number }).openP99));
      const bestFloorP99 = Math.min(...METRICS.map((m) => (boards[m] as { healthFloorP99: number }).healthFloorP99));
      figures.targets = {
        leaderboardP99Ms: 10,
        worstOpenP99,
        leaderboardMet: worstOpenP99 <= 10,
        bestHealthFloorP99: bestFloorP99,
        floorBelowTarget: bestFloorP99 <= 10,
        // Issue 18 item 7: the keyed board's paced p99 within 1.5x the floor (GET /health paced at the same rate in the
        // same run, in alternate half seconds): judged on the median turn, which the VM's stalls do not decide; the
        // pooled ratio is printed beside it.
        keyedOpenP99: auth.openP99,
        keyedFloorP99: auth.healthFloorP99,
        keyedPooledToFloor: round(auth.openP99 / auth.healthFloorP99, 2),
        keyedToFloor: auth.p99ToFloor,
        keyedMaxToFloor: 1.5,
        keyedMet: auth.p99ToFloor <= 1.5,
        ...maintenance,
      };
    }
  } finally {
    await pool.end();
    // BENCH_KEEP_DB=1 keeps the generated database for inspection (its URL is on the first line).
    if (process.env.BENCH_KEEP_DB !== '1') await db.drop();
  }
  log(JSON.stringify(figures));
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
