/**
 * Time from launch to a 200 on /ready, on the embedded database, for a built checkout:
 * - first start: an empty DATA_DIR (the build's template is copied in);
 * - restart: the same DATA_DIR again;
 * - `npm start`: the README's command on the built checkout (its build check included, no recompiling);
 * - floor: a bare node HTTP server answering its first request, the same way.
 * Medians of RUNS runs each. Target (issue 18): first start and restart ≤ 3 s. Last line: one JSON object.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { freePort, median, startScriptNodeArgs } from './support/harness';
import { benchSetting } from './support/smoke';

const RUNS = benchSetting('BENCH_RUNS', 5, 1);
const TARGET_MS = 3000;
const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
const nodeArgs = startScriptNodeArgs(pkg.scripts.start);

/** Spawns `command`, polls `url` every 10 ms until it answers 200, stops the process; returns the milliseconds. */
async function timeToReady(command: string, args: string[], env: Record<string, string>, url: string): Promise<number> {
  const started = performance.now();
  const base: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env };
  delete base.DATABASE_URL;
  const child = spawn(command, args, { cwd: root, env: base, stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${command} exited with ${child.exitCode}`);
      try {
        const r = await fetch(url);
        if (r.ok) return performance.now() - started;
      } catch {
        /* not listening yet */
      }
      if (performance.now() - started > 120_000) throw new Error(`${command} did not answer ${url}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    await stop(child);
    // npm start's node outlives npm by its graceful shutdown: wait until nothing answers there any more.
    while (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      await new Promise((r) => setTimeout(r, 20));
  }
}

/** Ends the whole process group (npm start runs node under a shell). */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    process.kill(-child.pid!, 'SIGTERM');
  });
}

async function main(): Promise<void> {
  const main = path.join(root, 'dist/src/main.js');
  if (!fs.existsSync(path.join(root, 'dist/pglite-template/PG_VERSION'))) throw new Error('run npm run build first (no dist/pglite-template)');
  const first: number[] = [];
  const restart: number[] = [];
  const npmStart: number[] = [];
  const floor: number[] = [];
  const bareServer = "require('http').createServer((q,s)=>s.end('ok')).listen(+process.env.PORT,'127.0.0.1')";
  for (let i = 0; i < RUNS; i++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-bench-'));
    try {
      let port = await freePort();
      const env = { PORT: String(port), DATA_DIR: path.join(dir, 'data') };
      first.push(await timeToReady(process.execPath, [...nodeArgs, main], env, `http://127.0.0.1:${port}/ready`));
      restart.push(await timeToReady(process.execPath, [...nodeArgs, main], env, `http://127.0.0.1:${port}/ready`));
      port = await freePort();
      npmStart.push(await timeToReady('npm', ['start', '--silent'], { PORT: String(port), DATA_DIR: path.join(dir, 'npm') }, `http://127.0.0.1:${port}/ready`));
      port = await freePort();
      floor.push(await timeToReady(process.execPath, ['-e', bareServer], { PORT: String(port) }, `http://127.0.0.1:${port}/`));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    console.log(
      `run ${i + 1}: first ${first[i]!.toFixed(0)} ms, restart ${restart[i]!.toFixed(0)} ms, npm start ${npmStart[i]!.toFixed(0)} ms, node floor ${floor[i]!.toFixed(0)} ms`,
    );
  }
  const figures = {
    bench: 'start',
    runs: RUNS,
    firstStartMs: Math.round(median(first)),
    restartMs: Math.round(median(restart)),
    npmStartMs: Math.round(median(npmStart)),
    nodeFloorMs: Math.round(median(floor)),
    firstOverFloor: Math.round((median(first) / median(floor)) * 100) / 100,
    targetMs: TARGET_MS,
    met: median(first) <= TARGET_MS && median(restart) <= TARGET_MS && median(npmStart) <= TARGET_MS,
    cpus: os.cpus().length,
    loadAverage: os.loadavg()[0],
  };
  console.log(JSON.stringify(figures));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
