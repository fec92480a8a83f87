import 'reflect-metadata';
import { Client } from 'pg';
import { createDatabase, median, round } from './support/harness';
import { testConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { startService } from '../src/start';
import type { LivePrice, PriceService } from '../src/domain/trading/price-service';
import { benchSetting } from './support/smoke';

/**
 * npm run bench:orders — 100,000 resting buy orders over 1,000 markets (generated set-based in PostgreSQL, with
 * their reservations), the service in this process on that database, then a stream of price changes through the
 * path every price change takes (services.priceChanges → OrderService.onPriceChanges):
 * 1. no-cross ticks: a price change on a random token that crosses no order, one at a time — its database time is
 *    the one probe of orders_open_by_price (p50/p99 of the round trip, and the server's execution time from EXPLAIN ANALYZE);
 * 2. crossing ticks: WORKERS tokens at once, each change lowering a token's ask one cent so it crosses the next few
 *    orders — fills per second, and p99 from the price change to each committed fill (counted when the change's
 *    handling returns, i.e. after its last fill committed);
 * 3. in the same run, the paper_trade rate: TradingService.buy (the method's domain call) from WORKERS workers.
 * Target: no-cross tick < 1 ms of database time; fills ≥ 0.6 × the paper_trade rate. Each figure is the median of
 * RUNS runs. Last line: one JSON object with every figure, `ratios.fillsToTrade` and `noCrossTickDbMs.p99` among them.
 */
const ORDERS = benchSetting('BENCH_ORDERS', 100_000, 2000);
const MARKETS = benchSetting('BENCH_MARKETS', 1_000, 50);
const ACCOUNTS = benchSetting('BENCH_ACCOUNTS', 2_000, 100);
const SECONDS = benchSetting('BENCH_SECONDS', 6, 1);
const RUNS = benchSetting('BENCH_RUNS', 3, 1);
const WORKERS = benchSetting('BENCH_WORKERS', 10, 4);
const TICKS = benchSetting('BENCH_TICKS', 3_000, 50);
/** Random tokens whose probe the server explains (EXPLAIN ANALYZE) for the no-cross database time. */
const PROBES = benchSetting('BENCH_PROBES', 500, 20);
const POOL = Number(process.env.BENCH_POOL ?? 10);

const uuidSql = (prefix: string, expr: string) => `('00000000-0000-4000-${prefix}-' || lpad(to_hex(${expr}), 12, '0'))::uuid`;
const userUuid = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
const yesToken = (m: number) => `ob-${m}-yes`;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * p))]! : NaN;
};
const log = (line: string) => process.stdout.write(`${line}\n`);

/** Every token quoted at bid 0.50 / ask 0.51: what paper_trade buys at. */
class FixedPrices implements PriceService {
  async live(tokenId: string): Promise<LivePrice> {
    return { tokenId, bidMicro: 500_000n, askMicro: 510_000n, midMicro: 505_000n, asOf: new Date(), source: 'simulated' };
  }
}

async function main(): Promise<void> {
  const db = await createDatabase('bench_orders');
  const config = testConfig({ DATABASE_URL: db.url, DB_POOL_SIZE: POOL, LOG_LEVEL: 'warn', PRICE_MAX_AGE_S: 3600 });
  const service = await startService(config, createLogger('warn'), { background: false, prices: new FixedPrices(), webDir: null });
  const q = service.services.db;
  // Generation runs on its own connection, free of the service's statement timeout.
  const gen = new Client({ connectionString: db.url });
  await gen.connect();
  try {
    const t0 = Date.now();
    await gen.query('SET statement_timeout = 0');
    await gen.query(
      `INSERT INTO markets (id, slug, question, category, volume, end_date, status, source)
       SELECT 'ob-' || i, 'ob-' || i || '-slug', 'Bench market ' || i || '?', 'Bench', 1000, now() + interval '30 days', 'active', 'simulated'
       FROM generate_series(1, $1::int) i`,
      [MARKETS],
    );
    await gen.query(
      `INSERT INTO market_tokens (token_id, market_id, outcome, label, price_micro, bid_micro, ask_micro, price_at)
       SELECT 'ob-' || i || '-' || lower(o), 'ob-' || i, o, initcap(o), 505000, 500000, 510000, now()
       FROM generate_series(1, $1::int) i CROSS JOIN (VALUES ('YES'), ('NO')) AS x(o)`,
      [MARKETS],
    );
    await gen.query(
      `INSERT INTO users (id, email, password_hash, display_name, is_agent, referral_code, created_at, last_active_at)
       SELECT ${uuidSql('8000', 'i')}, 'orders' || i || '@bench.test', 'bench', 'Orders ' || i, true, 'OB' || i, now(), now()
       FROM generate_series(1, $1::int) i`,
      [ACCOUNTS],
    );
    // Each account's cash row and track record (the account module opens both with the account).
    await gen.query(`INSERT INTO cash_balances (user_id, balance_micro) SELECT id, 1000000000000 FROM users`);
    await gen.query(`INSERT INTO track_figures (user_id) SELECT id FROM users`);
    await gen.query(
      `INSERT INTO transfers (debit_account, credit_account, asset, amount_micro, kind, ref, created_at)
       SELECT 'grants', 'cash:' || user_id, 'USD', balance_micro, 'grant', 'registration', now() FROM cash_balances`,
    );
    // Buy orders resting below the ask: per market ORDERS/MARKETS orders spread over limits 0.05..0.44 ($10 each, reserved),
    // sized in dollars ('amount', as a BUY placed with `amount` is; migration 45 made sized_by NOT NULL).
    await gen.query(
      `INSERT INTO orders (id, user_id, market_id, token_id, outcome, side, limit_price_micro, size_micro, time_in_force, state, created_at, updated_at, sized_by)
       SELECT ${uuidSql('9000', 'i')}, ${uuidSql('8000', '1 + ((i / $3::int) * 37 + i) % $2::int')}, 'ob-' || (1 + i % $3::int), 'ob-' || (1 + i % $3::int) || '-yes', 'YES', 'BUY',
              50000 + (((i / $3::int) * 7) % 40) * 10000, 10000000, 'GTC', 'open', now() - interval '1 hour' + i * interval '1 millisecond', now(), 'amount'
       FROM generate_series(1, $1::int) i`,
      [ORDERS, ACCOUNTS, MARKETS],
    );
    await gen.query(
      `INSERT INTO transfers (debit_account, credit_account, asset, amount_micro, kind, phase, order_id, ref, created_at)
       SELECT 'cash:' || user_id, 'venue', 'USD', size_micro, 'reserve', 'pending', id, id::text, created_at FROM orders`,
    );
    // Each resting order holds its $10 as a pending transfer (the ledger's answer to what it holds); the accounts' reserved balances sum them.
    await gen.query(
      `UPDATE cash_balances c SET reserved_micro = r.s FROM (SELECT user_id, sum(size_micro) AS s FROM orders GROUP BY user_id) r WHERE r.user_id = c.user_id`,
    );
    await gen.query('ANALYZE');
    log(`generated ${MARKETS} markets, ${ACCOUNTS} accounts, ${ORDERS} resting orders in ${round((Date.now() - t0) / 1000, 1)} s`);

    const { orders, trading } = service.services;
    const plan = await q.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT id FROM orders WHERE token_id = $1 AND side = 'BUY' AND state IN ('open', 'partially_filled') AND limit_price_micro >= $2`,
      [yesToken(1), 500_000],
    );
    log(`no-cross probe plan: ${plan.map((r) => r['QUERY PLAN'].trim()).join(' / ')}`);
    const change = (tokenId: string, bid: bigint, ask: bigint) => [{ tokenId, bidMicro: bid, askMicro: ask, asOf: new Date(), source: 'simulated' as const }];

    /** 1. Price changes crossing nothing, one at a time: round trip of the whole check, and the server's execution time. */
    const noCross = async () => {
      const lat: number[] = [];
      for (let i = 0; i < TICKS; i += 1) {
        const token = yesToken(1 + Math.floor(Math.random() * MARKETS));
        const started = performance.now();
        const filled = await orders.onPriceChanges(change(token, 490_000n, 500_000n), new Date());
        lat.push(performance.now() - started);
        if (filled !== 0) throw new Error('a no-cross tick filled an order');
      }
      const exec: number[] = [];
      for (let i = 0; i < PROBES; i += 1) {
        const token = yesToken(1 + Math.floor(Math.random() * MARKETS));
        const rows = await q.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN (ANALYZE, TIMING OFF) SELECT id FROM (
             (SELECT id, created_at FROM orders WHERE token_id = $1 AND side = 'BUY' AND state IN ('open', 'partially_filled') AND limit_price_micro >= $2::bigint)
             UNION ALL
             (SELECT id, created_at FROM orders WHERE token_id = $1 AND side = 'SELL' AND state IN ('open', 'partially_filled') AND limit_price_micro <= $3::bigint)
           ) o ORDER BY created_at, id`,
          [token, 500_000, 490_000],
        );
        const line = rows.map((r) => r['QUERY PLAN']).find((l) => l.startsWith('Execution Time'));
        exec.push(Number(/([\d.]+) ms/.exec(line ?? '')?.[1] ?? NaN));
      }
      return { p50: pct(lat, 0.5), p99: pct(lat, 0.99), execP50: pct(exec, 0.5), execP99: pct(exec, 0.99) };
    };

    /** 2. Crossing ticks: each worker walks its own tokens, lowering the ask a cent at a time through the resting limits. */
    const fillLat: number[] = [];
    const step = new Map<number, number>();
    let nextMarket = 0;
    const crossing = async () => {
      fillLat.length = 0;
      const stopAt = Date.now() + SECONDS * 1000;
      const started = performance.now();
      const worker = async (w: number) => {
        while (Date.now() < stopAt) {
          // Each worker owns the markets ≡ w (mod WORKERS): no two changes of one token at once.
          nextMarket += 1;
          const m = 1 + ((nextMarket * WORKERS + w) % MARKETS);
          const k = step.get(m) ?? 0;
          if (k >= 40) continue;
          step.set(m, k + 1);
          const ask = BigInt(440_000 - k * 10_000);
          // What the service registers on services.priceChanges; it returns once every fill it made has committed.
          const begun = performance.now();
          const n = await orders.onPriceChanges(change(yesToken(m), ask - 10_000n, ask), new Date());
          const ms = performance.now() - begun;
          for (let f = 0; f < n; f += 1) fillLat.push(ms);
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
      const seconds = (performance.now() - started) / 1000;
      const fills = fillLat.length;
      return { fillsPerS: fills / seconds, fills, p50: pct(fillLat, 0.5), p99: pct(fillLat, 0.99) };
    };

    /** 3. paper_trade's domain call (TradingService.buy) from WORKERS workers, $1 each. */
    const paperTrade = async () => {
      let n = 0;
      const lat: number[] = [];
      const stopAt = Date.now() + SECONDS * 1000;
      const started = performance.now();
      const worker = async (w: number) => {
        let i = w;
        while (Date.now() < stopAt) {
          const m = 1 + (i % MARKETS);
          i += WORKERS;
          const s = performance.now();
          await trading.buy(
            userUuid(1 + ((n += 1) % ACCOUNTS)),
            { marketId: `ob-${m}`, marketSlug: `ob-${m}-slug`, tokenId: yesToken(m), outcome: 'YES', amount: 1 },
            new Date(),
          );
          lat.push(performance.now() - s);
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
      return { tradesPerS: lat.length / ((performance.now() - started) / 1000), p50: pct(lat, 0.5), p99: pct(lat, 0.99) };
    };

    const runs = {
      noCross: [] as Awaited<ReturnType<typeof noCross>>[],
      fills: [] as Awaited<ReturnType<typeof crossing>>[],
      trades: [] as Awaited<ReturnType<typeof paperTrade>>[],
    };
    for (let r = 0; r < RUNS; r += 1) {
      runs.noCross.push(await noCross());
      runs.trades.push(await paperTrade());
      runs.fills.push(await crossing());
      const f = runs.fills[r]!;
      log(
        `run ${r + 1}: no-cross p99 ${round(runs.noCross[r]!.p99, 3)} ms; paper_trade ${round(runs.trades[r]!.tradesPerS, 1)}/s; fills ${round(f.fillsPerS, 1)}/s (${f.fills}), change→fill p99 ${round(f.p99, 1)} ms`,
      );
    }
    const med = <T>(xs: T[], f: (x: T) => number, d = 3) => round(median(xs.map(f)), d);
    // Database time of a no-cross change: the server's execution of its one probe (EXPLAIN ANALYZE on random tokens).
    // The round trip through the pool and this process's event loop is printed beside it (on a loaded machine it is
    // mostly waiting for the CPU, not the database).
    const noCrossTickDbMs = { p50: med(runs.noCross, (x) => x.execP50), p99: med(runs.noCross, (x) => x.execP99) };
    const noCrossTickRoundTripMs = { p50: med(runs.noCross, (x) => x.p50), p99: med(runs.noCross, (x) => x.p99) };
    const fills = {
      perS: med(runs.fills, (x) => x.fillsPerS, 1),
      changeToFillP50Ms: med(runs.fills, (x) => x.p50, 1),
      changeToFillP99Ms: med(runs.fills, (x) => x.p99, 1),
    };
    const paper = { perS: med(runs.trades, (x) => x.tradesPerS, 1), p50Ms: med(runs.trades, (x) => x.p50, 1), p99Ms: med(runs.trades, (x) => x.p99, 1) };
    // Each run measures paper_trade and then the fills back to back: the ratio is taken per run (the machine's speed
    // drifts between runs far more than within one) and its median reported.
    const ratios = {
      fillsToTrade: med(
        runs.fills.map((f, r) => f.fillsPerS / runs.trades[r]!.tradesPerS),
        (x) => x,
      ),
    };
    const [left] = await q.query<{ n: bigint }>(`SELECT count(*) AS n FROM orders WHERE state IN ('open', 'partially_filled')`);
    log(`orders=${ORDERS} markets=${MARKETS} workers=${WORKERS} seconds=${SECONDS} runs=${RUNS} (medians); ${left!.n} still resting at the end`);
    log(
      `no-cross price change: database time p50 ${noCrossTickDbMs.p50} ms, p99 ${noCrossTickDbMs.p99} ms (target < 1 ms); round trip p50 ${noCrossTickRoundTripMs.p50} ms, p99 ${noCrossTickRoundTripMs.p99} ms`,
    );
    log(`fills: ${fills.perS}/s, price change → committed fill p50 ${fills.changeToFillP50Ms} ms, p99 ${fills.changeToFillP99Ms} ms`);
    log(`paper_trade (TradingService.buy): ${paper.perS}/s, p50 ${paper.p50Ms} ms, p99 ${paper.p99Ms} ms`);
    log(`ratio fills/paper_trade ${ratios.fillsToTrade} (target ≥ 0.6)`);
    console.log(
      JSON.stringify({
        bench: 'orders',
        orders: ORDERS,
        markets: MARKETS,
        workers: WORKERS,
        seconds: SECONDS,
        runs: RUNS,
        noCrossTickDbMs,
        fills,
        paperTrade: paper,
        ratios,
      }),
    );
  } finally {
    await gen.end();
    await service.stop();
    await db.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
