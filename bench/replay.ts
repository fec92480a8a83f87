import 'reflect-metadata';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { startService } from '../src/start';
import { benchSetting } from './support/smoke';

/**
 * npm run bench:replay — a stepped replay run end to end (issue 35 item 5). The service runs in this process (DATABASE_URL
 * if set, else in-memory PGlite) on a loopback port. One agent starts a 30-day stepped run (BENCH_DAYS) of the simulated
 * venue with information and makes BENCH_CALLS calls with the run's key, a fixed mix spread evenly over the run: search
 * (search_markets and list_markets, which refreshes the agent's pool of open markets), odds, news, trades ($5), forecasts,
 * portfolio and advances (the window in equal steps), then end_replay. Printed: the wall time of the whole run (start to
 * end, the target is under 120 s), simulated seconds per wall second, the cost of a step, of a start and of an end, and of
 * each kind of call. Baseline in the same command: the same calls, with the agent's live key, on the live service (same
 * venue code, same process); `ratios` is each kind's mean in the run over its mean live. Last line: one JSON object.
 */
const DAYS = benchSetting('BENCH_DAYS', 30, 1);
const CALLS = benchSetting('BENCH_CALLS', 1000, 40);
const SEED = Number(process.env.BENCH_SEED ?? 7);
/** BENCH_SCENARIO=suite-v3/00 runs a published episode by name instead of BENCH_SEED (its days: leave BENCH_DAYS at 30). */
const SCENARIO = process.env.BENCH_SCENARIO;
/**
 * BENCH_LIMITS=spec runs the service at the SPEC's live limits (30 api calls, 120 trades a minute) with the run's own
 * budget in force (REPLAY_RATE_LIMIT_TIMES, default 40; =1 holds the run's key to the live limits): the agent waits out
 * each 429 (Retry-After) and goes on, and the live baseline, which would wait at 30 a minute, is not run. Default
 * (`off`): every limit lifted, so the figures are the run's own cost.
 */
const SPEC_LIMITS = process.env.BENCH_LIMITS === 'spec';
const DAY_S = 86_400;

type Kind = 'search' | 'odds' | 'news' | 'trade' | 'forecast' | 'portfolio' | 'advance';
/** Share of each kind in the agent's calls (advances: 6 %, 60 steps of 12 h for 1,000 calls over 30 days). */
const MIX: Record<Kind, number> = { search: 0.2, odds: 0.2, news: 0.15, trade: 0.15, forecast: 0.1, portfolio: 0.14, advance: 0.06 };

/** The calls in order: each kind's calls spread evenly over the run (the j-th of n at (j + ½) / n), so steps fall between reads and trades. */
export function schedule(calls: number, mix: Record<Kind, number> = MIX): Kind[] {
  const slots: Array<{ at: number; kind: Kind }> = [];
  const kinds = Object.keys(mix) as Kind[];
  let left = calls;
  kinds.forEach((kind, i) => {
    const n = i === kinds.length - 1 ? left : Math.round(calls * mix[kind]);
    left -= n;
    for (let j = 0; j < n; j += 1) slots.push({ at: (j + 0.5) / n, kind });
  });
  return slots.sort((a, b) => a.at - b.at || kinds.indexOf(a.kind) - kinds.indexOf(b.kind)).map((s) => s.kind);
}

interface Market {
  id: string;
  slug: string;
  question: string;
  status?: string;
  outcomeTokens: Array<{ outcome: string; tokenId: string }>;
}

class Agent {
  pool: Market[] = [];
  readonly ms = new Map<Kind, number[]>();
  refused = 0;
  private i = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly key: string,
    private readonly runId: string | null,
    private readonly stepS: number,
  ) {}

  /** Calls refused by a rate limit (each waited out and retried), and the wall seconds spent waiting. */
  limited = { calls: 0, waitedS: 0 };

  private async call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    for (;;) {
      const res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const json = (await res.json()) as unknown;
      if (res.status !== 429) return { status: res.status, json };
      // As a well-behaved agent does: wait as told, then the same call again.
      const waitS = Number(res.headers.get('retry-after') ?? 1);
      this.limited.calls += 1;
      this.limited.waitedS += waitS;
      await new Promise((r) => setTimeout(r, waitS * 1000));
    }
  }

  async refresh(): Promise<void> {
    const r = await this.call('GET', '/api/markets?limit=50&sort=volume');
    this.pool = (r.json as { markets: Market[] }).markets ?? [];
  }

  private market(): Market | undefined {
    return this.pool.length ? this.pool[this.i++ % this.pool.length] : undefined;
  }

  async act(kind: Kind): Promise<void> {
    const m = this.market();
    const started = performance.now();
    let status = 200;
    switch (kind) {
      case 'search': {
        // Every other search is the listing that keeps the pool fresh; the rest search a word of a pool market's question.
        if (this.i % 2 === 0) await this.refresh();
        else {
          const word = (m?.question.split(/\W+/).find((w) => w.length > 4) ?? 'market').toLowerCase();
          status = (await this.call('GET', `/api/search?q=${encodeURIComponent(word)}&limit=8`)).status;
        }
        break;
      }
      case 'odds':
        status = m ? (await this.call('GET', `/api/markets/${m.id}`)).status : 200;
        break;
      case 'news':
        status = (await this.call('GET', '/api/news?limit=10')).status;
        break;
      case 'trade': {
        const yes = m?.outcomeTokens.find((o) => o.outcome === 'YES');
        if (m && yes)
          status = (await this.call('POST', '/api/trade', { marketId: m.id, marketSlug: m.slug, tokenId: yes.tokenId, outcome: 'YES', amount: 5 })).status;
        break;
      }
      case 'forecast':
        if (m) status = (await this.call('POST', '/api/forecasts', { marketId: m.id, probability: 0.3 + ((this.i * 7) % 40) / 100 })).status;
        break;
      case 'portfolio':
        status = (await this.call('GET', '/api/positions')).status;
        break;
      case 'advance': {
        if (!this.runId) return;
        const r = await this.call('POST', `/api/replays/${this.runId}/advance`, { by: this.stepS });
        if (r.status !== 200) throw new Error(`advance_replay answered ${r.status}: ${JSON.stringify(r.json)}`);
        break;
      }
    }
    const list = this.ms.get(kind) ?? [];
    list.push(performance.now() - started);
    this.ms.set(kind, list);
    // A market that closed between a listing and a trade is refused (400), as it would be live: counted, not fatal.
    if (status >= 400) this.refused += 1;
    if (status >= 500) throw new Error(`${kind} answered ${status}`);
  }

  mean(kind: Kind): number {
    const xs = this.ms.get(kind) ?? [];
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
  }
}

const r2 = (x: number) => Math.round(x * 100) / 100;

async function main(): Promise<void> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Without DATABASE_URL, a data directory of its own, which starts as a copy of the build's migrated template as `npm
  // start`'s does: an in-memory PGlite ran initdb and every migration first (some 20 s of a loaded CI machine's), none
  // of it the run's cost this bench measures.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-bench-'));
  const config = loadConfig({
    ...process.env,
    DATA_DIR: process.env.DATABASE_URL ? undefined : path.join(dataDir, 'data'),
    BASE_URL: baseUrl,
    LOG_LEVEL: 'warn',
    SIM_INFORMATION: 'on',
    ...(SPEC_LIMITS
      ? { RATE_LIMIT_API_PER_MIN: '30', RATE_LIMIT_TRADE_PER_MIN: '120', RATE_LIMIT_SELL_PER_MIN: '120' }
      : { RATE_LIMIT_API_PER_MIN: '100000000', RATE_LIMIT_TRADE_PER_MIN: '100000000' }),
    RATE_LIMIT_REGISTER_PER_MIN: '1000',
  });
  const service = await startService(config, createLogger('warn'), { background: false });
  server.on('request', service.app);
  try {
    await service.services.marketSync.runOnce({ force: true });
    const reg = await fetch(`${baseUrl}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `bench-replay-${Date.now()}@example.com`, password: 'password123', displayName: 'BenchReplay', isAgent: true }),
    });
    const liveKey = ((await reg.json()) as { user: { apiKey: string } }).user.apiKey;
    const kinds = schedule(CALLS);
    const steps = kinds.filter((k) => k === 'advance').length;
    const stepS = Math.ceil((DAYS * DAY_S) / Math.max(1, steps));

    // The run: start, the agent's calls, end — one wall time.
    const t0 = performance.now();
    const startRes = await fetch(`${baseUrl}/api/replays`, {
      method: 'POST',
      headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(SCENARIO ? { scenario: SCENARIO } : { seed: SEED, days: DAYS }),
    });
    if (startRes.status !== 201) throw new Error(`start_replay answered ${startRes.status}: ${await startRes.text()}`);
    const run = (await startRes.json()) as { runId: string; apiKey: string };
    const startMs = performance.now() - t0;
    const inRun = new Agent(baseUrl, run.apiKey, run.runId, stepS);
    await inRun.refresh();
    const listed = inRun.pool.length;
    for (const kind of kinds) await inRun.act(kind);
    const t1 = performance.now();
    const endRes = await fetch(`${baseUrl}/api/replays/${run.runId}/end`, { method: 'POST', headers: { authorization: `Bearer ${liveKey}` } });
    if (endRes.status !== 200) throw new Error(`end_replay answered ${endRes.status}: ${await endRes.text()}`);
    const endMs = performance.now() - t1;
    const wallS = (performance.now() - t0) / 1000;
    const markets = Number((await service.services.db.query<{ n: string }>('SELECT count(*) AS n FROM markets'))[0]?.n ?? 0);

    // Baseline: the same calls (no advances) with the live key on the live venue.
    const onLive = new Agent(baseUrl, liveKey, null, stepS);
    if (!SPEC_LIMITS) {
      await onLive.refresh();
      for (const kind of kinds) if (kind !== 'advance') await onLive.act(kind);
    }

    const callKinds: Kind[] = ['search', 'odds', 'news', 'trade', 'forecast', 'portfolio'];
    const perKind = Object.fromEntries(
      callKinds.map((k) => [k, { runMs: r2(inRun.mean(k)), liveMs: r2(onLive.mean(k)), n: inRun.ms.get(k)?.length ?? 0 }]),
    ) as Record<string, { runMs: number; liveMs: number; n: number }>;
    const meanOf = (a: Agent) => {
      const xs = callKinds.flatMap((k) => a.ms.get(k) ?? []);
      return xs.reduce((s, x) => s + x, 0) / xs.length;
    };
    const figures = {
      scenario: SCENARIO ?? null,
      days: DAYS,
      calls: CALLS,
      steps,
      stepSeconds: stepS,
      marketsListedAtStart: listed,
      liveMarkets: markets,
      wallSeconds: r2(wallS),
      simSecondsPerWallSecond: Math.round((DAYS * DAY_S) / wallS),
      startMs: r2(startMs),
      stepMs: r2(inRun.mean('advance')),
      endMs: r2(endMs),
      callMs: r2(meanOf(inRun)),
      liveCallMs: r2(meanOf(onLive)),
      refused: { run: inRun.refused, live: onLive.refused },
      perKind,
      ratios: {
        runCallToLiveCall: r2(meanOf(inRun) / meanOf(onLive)),
        ...Object.fromEntries(callKinds.map((k) => [k, r2(inRun.mean(k) / onLive.mean(k))])),
      },
      limits: SPEC_LIMITS
        ? { live: { api: config.RATE_LIMIT_API_PER_MIN, trade: config.RATE_LIMIT_TRADE_PER_MIN }, runTimes: config.REPLAY_RATE_LIMIT_TIMES }
        : 'lifted',
      rateLimited: { calls: inRun.limited.calls, waitedSeconds: inRun.limited.waitedS },
      targets: { under2Minutes: wallS < 120 },
      database: process.env.DATABASE_URL ? 'postgres' : 'pglite-memory',
    };
    console.log(`run: ${DAYS} simulated days, ${CALLS} calls (${steps} steps of ${stepS} s), ${markets} markets in the live mirror`);
    console.log(`wall time of the run: ${r2(wallS)} s (target < 120 s) — ${figures.simSecondsPerWallSecond} simulated s per wall s`);
    if (SPEC_LIMITS)
      console.log(
        `limits: live ${config.RATE_LIMIT_API_PER_MIN} api / ${config.RATE_LIMIT_TRADE_PER_MIN} trades a minute, the run's ${config.REPLAY_RATE_LIMIT_TIMES}× that; ` +
          `${inRun.limited.calls} calls refused and waited out (${inRun.limited.waitedS} s)`,
      );
    console.log(
      `start ${r2(startMs)} ms, step ${figures.stepMs} ms, end ${r2(endMs)} ms; a call ${figures.callMs} ms in the run, ${figures.liveCallMs} ms live`,
    );
    for (const k of callKinds) console.log(`  ${k.padEnd(9)} run ${perKind[k]!.runMs} ms, live ${perKind[k]!.liveMs} ms (n ${perKind[k]!.n})`);
    console.log(JSON.stringify(figures));
  } finally {
    await service.stop();
    server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
