import 'reflect-metadata';
import { Pool } from 'pg';
import {
  benchPool,
  createDatabase,
  load,
  median,
  pacedCalls,
  pacedLoadInChild,
  round,
  startServiceProcess,
  type LoadFigures,
  type RequestSetup,
} from './support/harness';
import { findMarketRows } from '../src/market-data/market-search';
import { marketSpec } from '../src/market-data/simulated/catalog';
import { uniform } from '../src/market-data/simulated/random';
import { ConcurrencyGate } from '../src/db/concurrency-gate';
import { loadConfig } from '../src/config';
import { benchSetting, SMOKE } from './support/smoke';

/**
 * npm run bench:search — search over 100,000 markets on PostgreSQL. The service runs in its own process;
 * this one loads the markets straight into its database, then drives GET /api/search with random one-
 * and two-word queries (whole words and prefixes, drawn the way words occur in questions, so common
 * words like "will" and "the" come up often) from 50 connections: closed-loop, then open-loop at half
 * the measured rate. In the same run the raw SQL the service issues goes through pg at the same
 * concurrency, and paced at the same rate: alone, and at most SEARCH_CONCURRENCY at once, as the
 * service runs it. Each figure is the median of RUNS runs. Last line: one JSON object with every figure.
 */
const MARKETS = benchSetting('BENCH_MARKETS', 100_000, 1000);
const CONNECTIONS = benchSetting('BENCH_CONNECTIONS', 50, 4);
const SECONDS = benchSetting('BENCH_SECONDS', 10, 0.5);
const RUNS = benchSetting('BENCH_RUNS', 3, 1);
/** The service's pool and the raw driver's (BENCH_POOL overrides both). */
const POOL = Number(process.env.BENCH_POOL ?? 10);
const SEED = 20261122;
/** The service's default SEARCH_CONCURRENCY (it runs with its defaults): the gated SQL floor uses the same. */
const SEARCH_CONCURRENCY = loadConfig({}).SEARCH_CONCURRENCY;

/** 100k markets from the simulated venue's question bank, with its volumes, all active (source 'polymarket' so the simulated sync leaves them alone). */
async function loadMarkets(pool: Pool): Promise<void> {
  const batch = 5000;
  for (let from = 0; from < MARKETS; from += batch) {
    const specs = Array.from({ length: Math.min(batch, MARKETS - from) }, (_, i) => marketSpec({ seed: SEED, speed: 1 }, from + i));
    await pool.query(
      `INSERT INTO markets (id, slug, question, description, category, volume, end_date, status, source)
       SELECT 'b' || x.k, x.slug, x.question, x.description, x.category, x.volume, now() + interval '30 days', 'active', 'polymarket'
       FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[]) AS x(k, slug, question, description, category, volume)`,
      [
        specs.map((s) => s.k),
        specs.map((s) => `bench-${s.slug}`),
        specs.map((s) => s.question),
        specs.map((s) => s.description),
        specs.map((s) => s.category),
        specs.map((s) => s.finalVolume),
      ],
    );
    await pool.query(
      `INSERT INTO market_tokens (token_id, market_id, outcome, label, price_micro, bid_micro, ask_micro, price_at)
       SELECT x.yes, 'b' || x.k, 'YES', 'Yes', 500000, 495000, 505000, now() FROM unnest($1::int[], $2::text[]) AS x(k, yes)
       UNION ALL
       SELECT x.no, 'b' || x.k, 'NO', 'No', 500000, 495000, 505000, now() FROM unnest($1::int[], $3::text[]) AS x(k, no)`,
      [specs.map((s) => s.k), specs.map((s) => `9${s.yesTokenId.slice(1)}`), specs.map((s) => `8${s.noTokenId.slice(1)}`)],
    );
  }
  await pool.query('VACUUM ANALYZE markets');
  await pool.query('VACUUM ANALYZE market_tokens');
  // What the sync leader does after a sync: count the markets holding each search term (they steer the plan).
  await pool.query('SELECT refresh_search_terms(now())');
}

/** Queries as people type them: 1 or 2 words of a real question, the last word cut to a prefix a third of the time. */
function makeQueries(n: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const q = marketSpec({ seed: SEED, speed: 1 }, Math.floor(uniform(SEED, 9, i, 0) * MARKETS)).question;
    const words = (q.toLowerCase().match(/[a-z]{3,}/g) ?? []).filter((w, j, all) => all.indexOf(w) === j);
    if (!words.length) continue;
    const pickWord = (j: number) => {
      const w = words[Math.floor(uniform(SEED, 9, i, j) * words.length)]!;
      return uniform(SEED, 9, i, j + 10) < 0.33 ? w.slice(0, Math.max(3, Math.ceil(w.length / 2))) : w;
    };
    const whole = (j: number) => words[Math.floor(uniform(SEED, 9, i, j) * words.length)]!;
    out.push(uniform(SEED, 9, i, 20) < 0.5 || words.length < 2 ? pickWord(1) : `${whole(1)} ${pickWord(2)}`);
  }
  return out;
}

/** The exact statements the service runs for one query, through pg. */
async function searchOnce(pool: Pool, q: string): Promise<void> {
  await findMarketRows(async (sql, params) => (await pool.query(sql, params)).rows, q);
}

/** The service's statements, CONNECTIONS at a time on a pool of POOL. */
async function rawSql(pool: Pool, queries: string[]): Promise<LoadFigures> {
  const lat: number[] = [];
  let next = 0;
  const stopAt = Date.now() + SECONDS * 1000;
  const worker = async () => {
    while (Date.now() < stopAt) {
      const q = queries[next++ % queries.length]!;
      const started = performance.now();
      await searchOnce(pool, q);
      lat.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  lat.sort((a, b) => a - b);
  return { rps: lat.length / SECONDS, p50: lat[Math.floor(lat.length * 0.5)]!, p99: lat[Math.floor(lat.length * 0.99)]!, non2xx: 0, errors: 0 };
}

async function main(): Promise<void> {
  const db = await createDatabase('bench_search');
  const service = await startServiceProcess({ DATABASE_URL: db.url, DB_POOL_SIZE: String(POOL), RATE_LIMIT_API_PER_MIN: '100000000' });
  const pool = benchPool(db.url, POOL);
  try {
    const loadStarted = Date.now();
    await loadMarkets(pool);
    const loadSeconds = round((Date.now() - loadStarted) / 1000, 1);
    const queries = makeQueries(5000);
    let n = 0;
    const setup: RequestSetup = () => ({ path: `/api/search?q=${encodeURIComponent(queries[n++ % queries.length]!)}` });

    // Sanity: the figures must measure searches that find markets, not errors.
    const probe = await fetch(`${service.baseUrl}/api/search?q=will`);
    const body = (await probe.json()) as { markets?: unknown[] };
    if (!probe.ok || body.markets?.length !== 8) throw new Error(`search sanity check failed: ${probe.status} ${JSON.stringify(body).slice(0, 300)}`);
    await load(service.baseUrl, { connections: CONNECTIONS, seconds: SMOKE ? 0.5 : 3, setup }); // warm-up

    const runs: Record<'http' | 'httpOpen' | 'httpPaced' | 'sql' | 'sqlPaced' | 'sqlPacedGated' | 'healthPaced', LoadFigures[]> = {
      http: [],
      httpOpen: [],
      httpPaced: [],
      sql: [],
      sqlPaced: [],
      sqlPacedGated: [],
      healthPaced: [],
    };
    const gate = new ConcurrencyGate(SEARCH_CONCURRENCY);
    for (let r = 0; r < RUNS; r += 1) {
      runs.http.push(await load(service.baseUrl, { connections: CONNECTIONS, seconds: SECONDS, setup }));
      runs.httpOpen.push(await load(service.baseUrl, { connections: CONNECTIONS, seconds: SECONDS, rate: runs.http[r]!.rps / 2, setup }));
      runs.httpPaced.push(await pacedLoadInChild(service.baseUrl, { rate: runs.http[r]!.rps / 2, seconds: SECONDS, connections: CONNECTIONS, setup }));
      runs.sql.push(await rawSql(pool, queries));
      // Floors at the same paced rate, in the same run: the raw SQL alone, and the service doing no work (GET /health).
      runs.sqlPaced.push(await pacedCalls({ rate: runs.http[r]!.rps / 2, seconds: SECONDS }, (i) => searchOnce(pool, queries[i % queries.length]!)));
      // The same, at most SEARCH_CONCURRENCY at once, as the service runs them.
      runs.sqlPacedGated.push(
        await pacedCalls({ rate: runs.http[r]!.rps / 2, seconds: SECONDS }, (i) => gate.run(() => searchOnce(pool, queries[i % queries.length]!))),
      );
      runs.healthPaced.push(
        await pacedLoadInChild(service.baseUrl, {
          rate: runs.http[r]!.rps / 2,
          seconds: SECONDS,
          connections: CONNECTIONS,
          setup: () => ({ path: '/health' }),
        }),
      );
    }
    const med = (k: keyof typeof runs) => ({
      rps: round(median(runs[k].map((x) => x.rps)), 1),
      p50: round(median(runs[k].map((x) => x.p50))),
      p99: round(median(runs[k].map((x) => x.p99))),
      non2xx: runs[k].reduce((s, x) => s + x.non2xx + x.errors, 0),
      all: runs[k].map((x) => ({ rps: round(x.rps, 1), p50: round(x.p50), p99: round(x.p99) })),
    });
    const fig = {
      http: med('http'),
      httpOpenLoop: med('httpOpen'),
      httpPacedOpenLoop: med('httpPaced'),
      sql: med('sql'),
      sqlPacedFloor: med('sqlPaced'),
      sqlPacedGatedFloor: med('sqlPacedGated'),
      healthPacedFloor: med('healthPaced'),
    };
    const ratios = { httpToSql: round(fig.http.rps / fig.sql.rps, 3) };
    const targets = {
      openLoopP99Ms: 10,
      httpToSql: 0.5,
      metAutocannon: fig.httpOpenLoop.p99 <= 10 && ratios.httpToSql >= 0.5,
      metPaced: fig.httpPacedOpenLoop.p99 <= 10 && ratios.httpToSql >= 0.5,
      // Whether the machine itself gets under the target at this rate: the raw SQL, and the service answering nothing.
      floorsBelowTarget: Math.min(fig.sqlPacedFloor.p99, fig.sqlPacedGatedFloor.p99) <= 10 && fig.healthPacedFloor.p99 <= 10,
    };
    console.log(`markets=${MARKETS} (loaded in ${loadSeconds} s) connections=${CONNECTIONS} seconds=${SECONDS} runs=${RUNS} (medians) pool=${POOL}`);
    console.log(`HTTP closed-loop   ${fig.http.rps} q/s  p50 ${fig.http.p50} ms  p99 ${fig.http.p99} ms  non-2xx ${fig.http.non2xx}`);
    console.log(
      `HTTP open-loop @½  ${fig.httpOpenLoop.rps} q/s  p50 ${fig.httpOpenLoop.p50} ms  p99 ${fig.httpOpenLoop.p99} ms  non-2xx ${fig.httpOpenLoop.non2xx}`,
    );
    console.log(
      `HTTP paced @½      ${fig.httpPacedOpenLoop.rps} q/s  p50 ${fig.httpPacedOpenLoop.p50} ms  p99 ${fig.httpPacedOpenLoop.p99} ms  non-2xx ${fig.httpPacedOpenLoop.non2xx}`,
    );
    console.log(`raw SQL (pg)       ${fig.sql.rps} q/s  p50 ${fig.sql.p50} ms  p99 ${fig.sql.p99} ms`);
    console.log(
      `floors paced @½    raw SQL alone p50 ${fig.sqlPacedFloor.p50} ms p99 ${fig.sqlPacedFloor.p99} ms; ` +
        `at most ${SEARCH_CONCURRENCY} at once p50 ${fig.sqlPacedGatedFloor.p50} ms p99 ${fig.sqlPacedGatedFloor.p99} ms; ` +
        `GET /health p50 ${fig.healthPacedFloor.p50} ms p99 ${fig.healthPacedFloor.p99} ms`,
    );
    console.log(
      `ratio HTTP/SQL ${ratios.httpToSql} (target ≥ 0.5); open-loop p99 (target ≤ 10 ms): autocannon overallRate ${fig.httpOpenLoop.p99} ms ` +
        `(${targets.metAutocannon ? 'met' : 'NOT met'}), evenly paced ${fig.httpPacedOpenLoop.p99} ms (${targets.metPaced ? 'met' : 'NOT met'})`,
    );
    console.log(
      JSON.stringify({
        bench: 'search',
        markets: MARKETS,
        connections: CONNECTIONS,
        seconds: SECONDS,
        runs: RUNS,
        pool: POOL,
        searchConcurrency: SEARCH_CONCURRENCY,
        loadSeconds,
        ...fig,
        ratios,
        targets,
      }),
    );
  } finally {
    await pool.end();
    await service.stop();
    await db.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
