import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createDatabase, freePort, startScriptNodeArgs } from './harness';
import { ERROR_TABLE, type ErrorCode } from '../../src/errors/app-error';

/**
 * The soak: the built service in its own process (npm start's node flags, plus a memory probe), idle, then
 * mixed agents over REST, JSON-RPC and MCP for a while with a fault in the middle, then idle again. It reports
 * resident and heap memory over time (idle, loaded, slope) and what the agents saw, and audits the ledger.
 */
export interface SoakOptions {
  database: 'postgres' | 'embedded';
  idleSeconds: number;
  loadSeconds: number;
  agents: number;
  /** Extra node flags for the service, and whether npm start's own flags are used (to weigh them). */
  nodeArgs?: string[];
  startFlags?: boolean;
  log?: (line: string) => void;
  /** PostgreSQL server on which the soak's throwaway database is made (default: the benches' ADMIN_URL). */
  adminUrl?: string;
}

export interface MemoryFigures {
  idleMb: number;
  loadedMb: number;
  /** Least-squares slope over the load phase after its first fifth (warm-up), in MB per minute. */
  slopeMbPerMin: number;
}

/** The heap left after each full collection while loaded (past the warm-up): a leak climbs, garbage does not. */
export interface LiveHeapFigures {
  collections: number;
  firstMb: number | null;
  lastMb: number | null;
  /** Least-squares slope over those collections, MB per minute (null with fewer than 3). */
  slopeMbPerMin: number | null;
}

export interface SoakFigures {
  database: SoakOptions['database'];
  rss: MemoryFigures;
  heap: MemoryFigures;
  liveHeap: LiveHeapFigures;
  afterMb: number;
  /** Closed loop: each agent sends its next call when the last is answered; p50 and p99 in ms over the whole load. */
  requests: { ok: number; refused: number; unavailable: number; failed: number; perSecond: number; p50Ms: number; p99Ms: number };
  /** What each failed call was: transport, call and status (599: no answer), with how often. */
  failures: Record<string, number>;
  transports: Record<Transport, number>;
  fault: { kind: string; atSecond: number; serviceAlive: boolean };
  auditViolations: number;
}

type Transport = 'rest' | 'jsonrpc' | 'mcp';
interface Sample {
  t: number;
  rss: number;
  heapUsed: number;
  /** The heap in use just after the latest full collection, and when it ran (memory-probe.ts). */
  liveHeap?: { t: number; bytes: number };
}

const ROOT = path.resolve(__dirname, ...(__dirname.includes(`${path.sep}dist${path.sep}`) ? ['..', '..', '..'] : ['..', '..']));
const MB = 1024 * 1024;

export function builtServicePaths(): { main: string; probe: string } {
  return { main: path.join(ROOT, 'dist/src/main.js'), probe: path.join(ROOT, 'dist/bench/support/memory-probe.js') };
}

export async function runSoak(opts: SoakOptions): Promise<SoakFigures> {
  const log = opts.log ?? (() => {});
  const { main, probe } = builtServicePaths();
  if (!fs.existsSync(main) || !fs.existsSync(probe)) throw new Error('the service is not built: run npm run build');
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const flags = opts.startFlags === false ? [] : startScriptNodeArgs(pkg.scripts.start);

  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'soak-'));
  const pg = opts.database === 'postgres' ? await createDatabase('soak', opts.adminUrl) : undefined;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    RATE_LIMIT_REGISTER_PER_MIN: '100000',
    RATE_LIMIT_API_PER_MIN: '1000000',
    RATE_LIMIT_TRADE_PER_MIN: '1000000',
    RATE_LIMIT_SELL_PER_MIN: '1000000',
  };
  delete env.REDIS_URL;
  if (pg) env.DATABASE_URL = pg.url;
  else {
    delete env.DATABASE_URL;
    env.DATA_DIR = path.join(dataDir, 'data');
  }
  const samples: Sample[] = [];
  const child = spawn(process.execPath, [...flags, ...(opts.nodeArgs ?? []), '--require', probe, main], { env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  child.on('message', (m: Sample & { probe?: string }) => {
    if (m.probe === 'memory') samples.push({ t: m.t, rss: m.rss, heapUsed: m.heapUsed, liveHeap: m.liveHeap });
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitReady(base, child);
    log(`${opts.database}: ready; idle ${opts.idleSeconds} s`);
    const idleFrom = Date.now();
    await sleep(opts.idleSeconds * 1000);
    const idleTo = Date.now();

    const agents = await Promise.all(Array.from({ length: opts.agents }, () => register(base)));
    const markets = await tradeableMarkets(base);
    log(`${opts.database}: ${agents.length} agents on ${markets.length} markets for ${opts.loadSeconds} s, a fault at half time`);
    const counts = { ok: 0, refused: 0, unavailable: 0, failed: 0 };
    const transports: Record<Transport, number> = { rest: 0, jsonrpc: 0, mcp: 0 };
    const failures: Record<string, number> = {};
    const latencies: number[] = [];
    const loadFrom = Date.now();
    const deadline = loadFrom + opts.loadSeconds * 1000;
    const faultAt = loadFrom + (opts.loadSeconds * 1000) / 2;
    const fault = { kind: pg ? 'database connections terminated' : 'process stalled 2 s (SIGSTOP)', atSecond: opts.loadSeconds / 2, serviceAlive: true };
    const faulting = (async () => {
      await sleep(faultAt - Date.now());
      if (pg) await terminateConnections(pg.url);
      else {
        child.kill('SIGSTOP');
        await sleep(2000);
        child.kill('SIGCONT');
      }
      log(`${opts.database}: fault done (${fault.kind})`);
    })();
    await Promise.all(
      agents.map(async (agent, a) => {
        for (let i = a; Date.now() < deadline; i++) {
          const transport: Transport = (['rest', 'rest', 'jsonrpc', 'mcp'] as const)[i % 4]!;
          transports[transport] += 1;
          const call = callName(agent, transport, i);
          const sent = performance.now();
          const status = await agentStep(base, agent, markets[i % markets.length]!, transport, i);
          latencies.push(performance.now() - sent);
          if (status < 300) counts.ok += 1;
          else if (status === 503) counts.unavailable += 1;
          else if (status < 500) counts.refused += 1;
          else {
            counts.failed += 1;
            const what = `${transport} ${call} ${status}`;
            failures[what] = (failures[what] ?? 0) + 1;
          }
        }
      }),
    );
    await faulting;
    const loadTo = Date.now();
    fault.serviceAlive = child.exitCode === null && child.signalCode === null;
    await sleep(3000);
    const after = samples.filter((s) => s.t > loadTo);

    const idle = samples.filter((s) => s.t >= idleFrom + (idleTo - idleFrom) / 2 && s.t <= idleTo);
    const loaded = samples.filter((s) => s.t >= loadFrom && s.t <= loadTo);
    const settled = loaded.filter((s) => s.t >= loadFrom + (loadTo - loadFrom) / 5);
    const figures = (pick: (s: Sample) => number): MemoryFigures => ({
      idleMb: round(median(idle.map(pick)) / MB),
      loadedMb: round(Math.max(...loaded.map(pick)) / MB),
      slopeMbPerMin: round(slope(settled.map((s) => [s.t / 60000, pick(s) / MB]))),
    });
    const result: SoakFigures = {
      database: opts.database,
      rss: figures((s) => s.rss),
      heap: figures((s) => s.heapUsed),
      liveHeap: liveHeapFigures(samples, loadFrom + (loadTo - loadFrom) / 5, loadTo),
      afterMb: round(median(after.map((s) => s.rss)) / MB),
      requests: {
        ...counts,
        perSecond: round((counts.ok + counts.refused + counts.unavailable + counts.failed) / ((loadTo - loadFrom) / 1000)),
        p50Ms: round(percentile(latencies, 0.5)),
        p99Ms: round(percentile(latencies, 0.99)),
      },
      transports,
      failures,
      fault,
      auditViolations: -1,
    };
    await stop(child);
    result.auditViolations = await audit(pg?.url, env.DATA_DIR);
    return result;
  } finally {
    await stop(child);
    await pg?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

interface Agent {
  key: string;
  positions: string[];
}
interface MarketRef {
  id: string;
  slug: string;
  yes: string;
}

async function register(base: string): Promise<Agent> {
  const res = await fetch(`${base}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `soak-${randomUUID()}@example.com`, password: 'password123', displayName: 'Soak agent', isAgent: true }),
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { user: { apiKey: string } };
  return { key: body.user.apiKey, positions: [] };
}

async function tradeableMarkets(base: string): Promise<MarketRef[]> {
  const res = await fetch(`${base}/api/markets?limit=20&sort=volume`);
  const body = (await res.json()) as { markets: Array<{ id: string; slug: string; outcomeTokens?: Array<{ outcome: string; tokenId: string | null }> }> };
  const markets = body.markets
    .map((m) => ({ id: m.id, slug: m.slug, yes: m.outcomeTokens?.find((o) => o.outcome.toUpperCase() === 'YES')?.tokenId ?? '' }))
    .filter((m) => m.yes);
  if (!markets.length) throw new Error('no tradeable market listed');
  return markets;
}

/** The name of the call agentStep makes next (for the failures' tally). */
function callName(agent: Agent, transport: Transport, i: number): string {
  if (transport === 'jsonrpc') return i % 2 ? 'paper_trade' : 'get_portfolio';
  if (transport === 'mcp') return i % 2 ? 'get_market_odds' : 'get_balance';
  const kind = i % 5;
  return kind === 0 ? 'search' : kind === 1 ? 'list_markets' : kind === 2 && agent.positions.length ? 'sell' : kind === 3 ? 'positions' : 'trade';
}

/** One call of an agent's mix; returns the HTTP status (or the status the RPC error carries; 599 for a network error). */
async function agentStep(base: string, agent: Agent, m: MarketRef, transport: Transport, i: number): Promise<number> {
  const auth = { authorization: `Bearer ${agent.key}`, 'content-type': 'application/json' };
  const trade = { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 1 + (i % 3) };
  try {
    if (transport === 'rest') {
      const kind = i % 5;
      if (kind === 0) return (await fetch(`${base}/api/search?q=will`)).status;
      if (kind === 1) return (await fetch(`${base}/api/markets?limit=20`)).status;
      if (kind === 2 && agent.positions.length) {
        const id = agent.positions.shift()!;
        const res = await fetch(`${base}/api/positions/${id}/sell`, { method: 'POST', headers: auth, body: '{}' });
        return res.status === 400 ? 200 : res.status; // already closed by an earlier sale: not a failure
      }
      if (kind === 3) return (await fetch(`${base}/api/positions`, { headers: auth })).status;
      const res = await fetch(`${base}/api/trade`, { method: 'POST', headers: { ...auth, 'idempotency-key': randomUUID() }, body: JSON.stringify(trade) });
      if (res.ok) agent.positions.push(((await res.json()) as { positionId: string }).positionId);
      return res.status;
    }
    if (transport === 'jsonrpc') {
      const call = i % 2 ? { method: 'paper_trade', params: { ...trade, idempotencyKey: randomUUID() } } : { method: 'get_portfolio', params: {} };
      const res = await fetch(`${base}/api/a2a`, { method: 'POST', headers: auth, body: JSON.stringify({ jsonrpc: '2.0', id: i, ...call }) });
      const body = (await res.json()) as { error?: { data?: { httpStatus?: number } } };
      return body.error ? (body.error.data?.httpStatus ?? 500) : res.status;
    }
    const tool = i % 2 ? { name: 'get_market_odds', arguments: { marketSlug: m.slug } } : { name: 'get_balance', arguments: {} };
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { ...auth, accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: tool }),
    });
    const text = await res.text();
    const line = res.headers.get('content-type')?.startsWith('text/event-stream')
      ? (text
          .split('\n')
          .find((l) => l.startsWith('data:'))
          ?.slice(5) ?? '{}')
      : text;
    const answer = JSON.parse(line) as { result?: { isError?: boolean; structuredContent?: { code?: string } } };
    if (!answer.result?.isError) return res.status;
    // An MCP tool error carries the REST error body (its stable code), not an HTTP status: the code's status.
    const code = answer.result.structuredContent?.code as ErrorCode | undefined;
    return (code && ERROR_TABLE[code]?.status) || 500;
  } catch {
    return 599;
  }
}

/** Ends every connection the service holds to its database, as a database restart would. */
async function terminateConnections(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const admin = new Client({ connectionString: url });
  await admin.connect();
  await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
  await admin.end();
}

async function audit(url: string | undefined, dataDir: string | undefined): Promise<number> {
  require('reflect-metadata');
  const { openDatabase } = await import(path.join(ROOT, 'dist/src/db/database.js'));
  const { testConfig } = await import(path.join(ROOT, 'dist/src/config.js'));
  const { createLogger } = await import(path.join(ROOT, 'dist/src/logger.js'));
  const { auditLedger } = await import(path.join(ROOT, 'dist/src/domain/audit/ledger-audit.js'));
  const db = await openDatabase(testConfig(url ? { DATABASE_URL: url } : { DATA_DIR: dataDir! }), createLogger('silent'));
  try {
    return (await auditLedger(db)).violations.length;
  } finally {
    await db.close();
  }
}

async function waitReady(base: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/ready`)).ok) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error('service did not become ready');
    await sleep(100);
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGCONT');
    child.kill('SIGTERM');
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const round = (x: number) => Math.round(x * 10) / 10;
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : NaN;
}

function liveHeapFigures(samples: Sample[], from: number, to: number): LiveHeapFigures {
  const byTime = new Map<number, number>();
  for (const s of samples) if (s.liveHeap && s.liveHeap.t >= from && s.liveHeap.t <= to) byTime.set(s.liveHeap.t, s.liveHeap.bytes);
  const points = [...byTime].sort((a, b) => a[0] - b[0]);
  return {
    collections: points.length,
    firstMb: points.length ? round(points[0]![1] / MB) : null,
    lastMb: points.length ? round(points[points.length - 1]![1] / MB) : null,
    slopeMbPerMin: points.length >= 3 ? round(slope(points.map(([t, b]) => [t / 60000, b / MB]))) : null,
  };
}

function percentile(values: number[], q: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  if (points.length < 2) return 0;
  const mx = points.reduce((a, [x]) => a + x, 0) / points.length;
  const my = points.reduce((a, [, y]) => a + y, 0) / points.length;
  const num = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  const den = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  return den ? num / den : 0;
}
