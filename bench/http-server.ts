import 'reflect-metadata';
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { constants } from 'node:perf_hooks';
import type { Server } from 'node:http';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { startService } from '../src/start';
import { createAppServer } from '../src/http/app-server';
import { median, pacedLoadInChild, round } from './support/harness';
import { benchSetting, SMOKE } from './support/smoke';

/**
 * npm run bench:http-server — what creating the app's requests with express's prototypes (src/http/app-server.ts)
 * saves. The service (embedded PGlite in a throwaway data directory, no background work) runs in a child process behind either express's
 * own app.listen (every request re-parented with Object.setPrototypeOf) or createAppServer, and GET /health
 * is paced at RATE/s from this process. The child counts its young-generation collections (scavenges) with a
 * PerformanceObserver. The two servers alternate, RUNS times each; figures are medians.
 * Last line: one JSON object with every figure.
 */
const RATE = benchSetting('BENCH_RATE', 1000, 200);
const SECONDS = benchSetting('BENCH_SECONDS', 8, 1);
const RUNS = benchSetting('BENCH_RUNS', 3, 1);
type Mode = 'app.listen' | 'createAppServer';

interface GcStats {
  scavenges: number;
  meanMs: number;
  maxMs: number;
}

async function child(mode: Mode): Promise<void> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'warn' });
  const service = await startService(config, createLogger('warn'), { background: false });
  let server: Server;
  if (mode === 'createAppServer') {
    server = createAppServer(service.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  } else {
    await new Promise<void>((resolve) => (server = service.app.listen(0, '127.0.0.1', () => resolve())));
  }
  let scavenges: number[] = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries() as Array<PerformanceEntry & { detail?: { kind?: number } }>) {
      if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges.push(e.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('message', (msg) => {
    if (msg === 'reset') scavenges = [];
    if (msg === 'stats') {
      const stats: GcStats = {
        scavenges: scavenges.length,
        meanMs: scavenges.length ? scavenges.reduce((a, b) => a + b, 0) / scavenges.length : 0,
        maxMs: scavenges.length ? Math.max(...scavenges) : 0,
      };
      process.send!(stats);
    }
  });
  process.send!({ port: (server!.address() as AddressInfo).port });
}

function ask<T>(c: ChildProcess, msg: string): Promise<T> {
  return new Promise((resolve) => {
    c.once('message', (m) => resolve(m as T));
    c.send(msg);
  });
}

async function runOnce(mode: Mode) {
  // A data directory of its own, which starts as a copy of the build's migrated template as `npm start`'s does: an
  // in-memory PGlite ran initdb and every migration in each child (some 20 s of a loaded CI machine's, per child), for
  // a bench whose requests (GET /health) never reach the database.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'http-server-bench-'));
  const env = process.env.DATABASE_URL ? process.env : { ...process.env, DATA_DIR: path.join(dataDir, 'data') };
  const c = fork(__filename, ['child', mode], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    return await measure(c);
  } finally {
    if (c.exitCode === null && c.signalCode === null) {
      const exited = new Promise((resolve) => c.once('exit', resolve));
      c.kill();
      await exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function measure(c: ChildProcess) {
  const { port } = await new Promise<{ port: number }>((resolve) => c.once('message', (m) => resolve(m as { port: number })));
  const url = `http://127.0.0.1:${port}`;
  const setup = () => ({ path: '/health' });
  await pacedLoadInChild(url, { rate: RATE, seconds: SMOKE ? 0.5 : 2, connections: 50, setup }); // warm-up
  c.send('reset');
  const load = await pacedLoadInChild(url, { rate: RATE, seconds: SECONDS, connections: 50, setup });
  const gc = await ask<GcStats>(c, 'stats');
  return { p50: load.p50, p99: load.p99, non2xx: load.non2xx + load.errors, ...gc };
}

async function main(): Promise<void> {
  const modes: Mode[] = ['app.listen', 'createAppServer'];
  const runs: Record<Mode, Awaited<ReturnType<typeof runOnce>>[]> = { 'app.listen': [], createAppServer: [] };
  for (let r = 0; r < RUNS; r += 1) for (const m of modes) runs[m].push(await runOnce(m));
  const summary = (m: Mode) => ({
    p50: round(median(runs[m].map((x) => x.p50))),
    p99: round(median(runs[m].map((x) => x.p99))),
    scavenges: median(runs[m].map((x) => x.scavenges)),
    scavengeMeanMs: round(median(runs[m].map((x) => x.meanMs))),
    scavengeMaxMs: round(median(runs[m].map((x) => x.maxMs))),
    non2xx: runs[m].reduce((s, x) => s + x.non2xx, 0),
    all: runs[m].map((x) => ({ p99: round(x.p99), scavengeMeanMs: round(x.meanMs) })),
  });
  const fig = { 'app.listen': summary('app.listen'), createAppServer: summary('createAppServer') };
  console.log(`GET /health paced at ${RATE}/s for ${SECONDS} s, ${RUNS} runs each (medians)`);
  for (const m of modes) {
    const f = fig[m];
    console.log(
      `${m.padEnd(16)} p50 ${f.p50} ms  p99 ${f.p99} ms  scavenges ${f.scavenges}, mean ${f.scavengeMeanMs} ms, max ${f.scavengeMaxMs} ms  non-2xx ${f.non2xx}`,
    );
  }
  const ratios = {
    p99: round(fig.createAppServer.p99 / fig['app.listen'].p99, 3),
    scavengeMean: round(fig.createAppServer.scavengeMeanMs / fig['app.listen'].scavengeMeanMs, 3),
  };
  console.log(`createAppServer / app.listen: p99 ${ratios.p99}, mean scavenge ${ratios.scavengeMean}`);
  console.log(JSON.stringify({ bench: 'http-server', rate: RATE, seconds: SECONDS, runs: RUNS, ...fig, ratios }));
}

if (process.argv[2] === 'child') void child(process.argv[3] as Mode);
else
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
