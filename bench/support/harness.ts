import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client, Pool } from 'pg';
import autocannon from 'autocannon';
import { RawHttpClient } from './raw-http-load';
import { startScriptNodeArgs } from '../../scripts/node-flags';
import { migratedTemplate } from './postgres-template';
import { SMOKE } from './smoke';

// Benches run the service with the runtime flags it is deployed with, written in one place (package.json's start script).
export { startScriptNodeArgs };

/** Shared pieces of the benchmarks: a throwaway PostgreSQL database, the service as a child process, autocannon runs. */

export const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A throwaway database, migrated and empty: a copy of the server's migrated template (the service's migrations then find nothing to do). */
export async function createDatabase(prefix: string, adminUrl = ADMIN_URL): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const template = await migratedTemplate(adminUrl);
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      // BENCH_KEEP=1 keeps the database for a closer look (its URL is printed).
      if (process.env.BENCH_KEEP === '1') return void console.log(`kept database ${url.toString()}`);
      const c = new Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * A pg pool for a bench's own statements. Its idle clients may still be closing when the database is
 * dropped WITH (FORCE); the server's "terminating connection" then arrives as a pool 'error', which would
 * otherwise crash the bench before it prints its last line.
 */
export function benchPool(url: string, max: number): Pool {
  // Pipelined like the service's own pool (src/db/database.ts), so a baseline transaction can take the same shape.
  const pool = new Pool({ connectionString: url, max, pipeline: true } as ConstructorParameters<typeof Pool>[0]);
  pool.on('error', () => {});
  return pool;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export interface ServiceProcess {
  baseUrl: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the built service (dist/src/main.js) in its own process with `npm start`'s node flags, and waits for /ready. */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const main = path.resolve(__dirname, '../../src/main.js');
  const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as { scripts: { start: string } };
  // BENCH_SERVICE_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") adds flags, to profile the service under load.
  const nodeArgs = [...startScriptNodeArgs(pkg.scripts.start), ...(process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const child = spawn(process.execPath, [...nodeArgs, main], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      const r = await fetch(`${baseUrl}/ready`);
      if (r.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error('service did not become ready');
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    baseUrl,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface LoadFigures {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** A stream's figures in pacedStreams, with the p99 of each of its slices, in order. */
export interface SlicedFigures extends LoadFigures {
  sliceP99: number[];
}

export type RequestSetup = (context: Record<string, unknown>) => { method?: string; path: string; headers?: Record<string, string>; body?: string };

/** Closed loop at `connections`, or open loop at `rate` requests/s overall when given. */
export async function load(baseUrl: string, opts: { connections: number; seconds: number; rate?: number; setup: RequestSetup }): Promise<LoadFigures> {
  const result = await autocannon({
    url: baseUrl,
    connections: opts.connections,
    duration: opts.seconds,
    ...(opts.rate ? { overallRate: Math.max(1, Math.floor(opts.rate)) } : {}),
    requests: [
      {
        setupRequest: (req: Record<string, unknown>, context: Record<string, unknown>) => {
          const r = opts.setup(context);
          return { ...req, method: r.method ?? 'GET', path: r.path, headers: { ...(req.headers as object), ...(r.headers ?? {}) }, body: r.body };
        },
      } as never,
    ],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** How long a paced run sends at its pace before it starts counting (pacedCalls); a smoke run's figures are not read. */
export const WARMUP_SECONDS = SMOKE ? 0.25 : 1;

export const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/**
 * A truly open loop: requests leave at evenly spaced instants whatever the answers do, and latency runs
 * from the scheduled instant (so a slow answer delays nobody's clock: no coordinated omission).
 * autocannon's overallRate is not that: each connection fires its per-second quota back to back when
 * its one-second timer ticks, so the load arrives in bursts of up to `connections` at once.
 * Requests go out on `connections` keep-alive sockets through RawHttpClient, which allocates almost
 * nothing per call, so the loader's own garbage collection does not show up as the service's latency.
 * Each request gets a fresh setup context.
 */
export async function pacedLoad(
  baseUrl: string,
  opts: { rate: number; seconds: number; connections: number; setup: RequestSetup; warmupSeconds?: number },
): Promise<LoadFigures> {
  return unsliced((await pacedStreams(baseUrl, { ...opts, streams: [opts.setup], sliceSeconds: opts.seconds }))[0]!);
}

/** A single stream's figures without its one slice's p99 (the run's own). */
function unsliced({ rps, p50, p99, non2xx, errors }: SlicedFigures): LoadFigures {
  return { rps, p50, p99, non2xx, errors };
}

/**
 * pacedLoad over several request streams in turn: each `sliceSeconds` of the run's paced requests belong to the
 * next stream, round and round, and each stream gets its own figures (`rps` over its own share of the time). Two
 * streams compared this way (a board and GET /health, its floor) see the same loader and sockets and, slice by
 * slice, the same moments of a machine whose speed drifts: on a shared two-core VM a /health floor measured in a
 * run of its own was 8.8 ms at p99 in one run and 27.3 ms in the next, and the board's ratio to it ran 0.77x to 2.13x.
 */
export async function pacedStreams(
  baseUrl: string,
  opts: { rate: number; seconds: number; connections: number; streams: RequestSetup[]; sliceSeconds: number; warmupSeconds?: number },
): Promise<SlicedFigures[]> {
  const url = new URL(baseUrl);
  const client = new RawHttpClient(url.hostname, Number(url.port), opts.connections);
  await client.ready();
  const warmup = Math.floor(opts.rate * (opts.warmupSeconds ?? WARMUP_SECONDS));
  const perSlice = Math.max(1, Math.round(opts.rate * opts.sliceSeconds));
  // The warm-up's requests take no stream's turn: the first counted request opens the first stream's first slice.
  const sliceOf = (i: number) => (i < warmup ? 0 : Math.floor((i - warmup) / perSlice));
  const streamOf = (i: number) => sliceOf(i) % opts.streams.length;
  const non2xx = opts.streams.map(() => 0);
  const { latencies, errors } = await pacedLatencies(opts, async (i) => {
    const s = streamOf(i);
    const status = await client.request(opts.streams[s]!({}));
    if (i >= warmup && (status < 200 || status >= 300)) non2xx[s]! += 1;
  });
  client.close();
  return opts.streams.map((_, s) => {
    const mine = latencies.filter((l) => streamOf(l.i) === s);
    // Each of this stream's turns on its own, in order: turn r of every stream lies beside turn r of the others.
    const turns: number[][] = [];
    for (const l of mine) (turns[Math.floor(sliceOf(l.i) / opts.streams.length)] ??= []).push(l.ms);
    const sliceP99 = turns.map((t) => figuresOf(t, opts.sliceSeconds).p99);
    return {
      ...figuresOf(
        mine.map((l) => l.ms),
        opts.seconds / opts.streams.length,
      ),
      non2xx: non2xx[s]!,
      errors,
      sliceP99,
    };
  });
}

export type RawRequestSpec = ReturnType<RequestSetup>;

/** What pacedStreamsInChild sends its child: the target, the pace, the slices, and every request of each stream in order. */
export interface PacedJob {
  baseUrl: string;
  rate: number;
  seconds: number;
  connections: number;
  sliceSeconds: number;
  streams: RawRequestSpec[][];
}

/** A setup that hands out `requests` in order, round and round. */
export function replay(requests: RawRequestSpec[]): RequestSetup {
  let i = 0;
  return () => requests[i++ % requests.length]!;
}

/**
 * pacedLoad from a process of its own (bench/support/paced-loader-child.ts), as BENCHMARKS.md asks: the
 * requests are drawn here first, in the order pacedLoad would have drawn them, then sent over. Only from
 * the built benches (dist), where the child is JavaScript; the tests drive pacedLoad itself.
 */
export async function pacedLoadInChild(
  baseUrl: string,
  opts: { rate: number; seconds: number; connections: number; setup: RequestSetup },
): Promise<LoadFigures> {
  return unsliced((await pacedStreamsInChild(baseUrl, { ...opts, streams: [opts.setup], sliceSeconds: opts.seconds }))[0]!);
}

/** pacedStreams from a process of its own, as pacedLoadInChild is pacedLoad's. */
export async function pacedStreamsInChild(
  baseUrl: string,
  opts: { rate: number; seconds: number; connections: number; streams: RequestSetup[]; sliceSeconds: number },
): Promise<SlicedFigures[]> {
  // As many of each stream's requests as the whole run sends, warm-up included: a stream draws no more than that.
  const total = Math.floor(opts.rate * WARMUP_SECONDS) + Math.max(1, Math.floor(opts.rate * opts.seconds));
  const streams = opts.streams.map((setup) => Array.from({ length: total }, () => setup({})));
  const child = fork(path.resolve(__dirname, 'paced-loader-child.js'), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise<SlicedFigures[]>((resolve, reject) => {
    child.once('message', (figures) => resolve(figures as SlicedFigures[]));
    child.once('exit', (code) => reject(new Error(`paced loader exited with ${code} before answering`)));
    const job: PacedJob = { baseUrl, rate: opts.rate, seconds: opts.seconds, connections: opts.connections, sliceSeconds: opts.sliceSeconds, streams };
    child.send(job);
  });
}

/**
 * An evenly paced open loop around any async call (pacedLoad's HTTP requests, the raw baselines): latency
 * from the scheduled instant. The first `warmupSeconds` (default 1) run at the same pace but are not
 * counted: a fresh loader process compiles its own code while its first requests are due, and on two cores
 * its first quarter second alone put 1.6 % of a ten-second run's requests past 15 ms (a run's p99).
 */
export async function pacedCalls(opts: { rate: number; seconds: number; warmupSeconds?: number }, call: (i: number) => Promise<void>): Promise<LoadFigures> {
  const { latencies, errors } = await pacedLatencies(opts, call);
  return {
    ...figuresOf(
      latencies.map((l) => l.ms),
      opts.seconds,
    ),
    errors,
  };
}

/** pacedCalls' open loop: the latency of each counted call that succeeded, by call index, and how many failed. */
async function pacedLatencies(
  opts: { rate: number; seconds: number; warmupSeconds?: number },
  call: (i: number) => Promise<void>,
): Promise<{ latencies: Array<{ i: number; ms: number }>; errors: number }> {
  const warmup = Math.floor(opts.rate * (opts.warmupSeconds ?? WARMUP_SECONDS));
  const total = warmup + Math.max(1, Math.floor(opts.rate * opts.seconds));
  const interval = 1000 / opts.rate;
  const latencies: Array<{ i: number; ms: number }> = [];
  let errors = 0;
  let sent = 0;
  let done = 0;
  const start = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      while (sent < total && start + sent * interval <= performance.now()) {
        const scheduled = start + sent * interval;
        const i = sent++;
        call(i)
          .then(() => {
            if (i >= warmup) latencies.push({ i, ms: performance.now() - scheduled });
          })
          .catch(() => (errors += 1))
          .finally(() => {
            done += 1;
            if (done === total) resolve();
          });
      }
      if (sent < total) setTimeout(tick, Math.max(0, start + sent * interval - performance.now()));
    };
    tick();
  });
  return { latencies, errors };
}

/** Throughput over `seconds` and the median and 99th percentile of `lat` (ms). */
function figuresOf(lat: number[], seconds: number): Omit<LoadFigures, 'errors'> {
  const s = [...lat].sort((a, b) => a - b);
  return { rps: s.length / seconds, p50: s[Math.floor(s.length * 0.5)]!, p99: s[Math.floor(s.length * 0.99)]!, non2xx: 0 };
}
