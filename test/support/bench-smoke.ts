import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The check CI runs over every bench (test/bench/smoke.test.ts): a bench is the built script a `bench:*` script of
 * package.json runs, and it passes when, run in smoke mode (BENCH_SMOKE=1), it exits 0 and its last line is one
 * JSON object (the line the benches' docs promise and bench/README.md's history is written from).
 */

export const ROOT = path.resolve(__dirname, '../..');

export interface BenchScript {
  /** The npm script, e.g. `bench:orders`. */
  script: string;
  /** The built bench it runs, relative to the root, e.g. `dist/bench/orders.js`. */
  file: string;
}

/** Every `bench:*` script of package.json with the built file it runs; a script of another form is refused, so no bench escapes the check. */
export function benchScripts(scripts: Record<string, string>): BenchScript[] {
  return Object.entries(scripts)
    .filter(([name]) => name.startsWith('bench:'))
    .map(([script, command]) => {
      const m = /(?:^|&&\s*)node (dist\/bench\/[\w-]+\.js)\s*$/.exec(command);
      if (!m) throw new Error(`${script} does not end by running a built bench (node dist/bench/<name>.js): ${command}`);
      return { script, file: m[1]! };
    });
}

export type LastLine = { ok: true; value: Record<string, unknown> } | { ok: false; reason: string };

/** Whether `stdout`'s last non-empty line is one JSON object, and which. */
export function lastJsonLine(stdout: string): LastLine {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  const last = lines.at(-1);
  if (last === undefined) return { ok: false, reason: 'it printed nothing' };
  let value: unknown;
  try {
    value = JSON.parse(last);
  } catch {
    return { ok: false, reason: `its last line is not JSON: ${last.slice(0, 200)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, reason: `its last line is JSON but not an object: ${last.slice(0, 200)}` };
  return { ok: true, value: value as Record<string, unknown> };
}

export interface SmokeResult {
  /** The verdict: exit 0 and a JSON object on the last line. */
  ok: boolean;
  reason?: string;
  value?: Record<string, unknown>;
  code: number | null;
  seconds: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `file` (a path from the root, or absolute) with node in smoke mode and judges its output. The environment is the
 * caller's with BENCH_SMOKE=1 and `env` over it, without any other BENCH_ or SOAK_ setting that would override smoke
 * sizes; a bench still running after `timeoutMs` is killed (with its process group) and fails.
 */
export function runSmoke(file: string, env: Record<string, string | undefined>, timeoutMs: number): Promise<SmokeResult> {
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(BENCH_|SOAK_)/.test(k)) base[k] = v;
  const childEnv: NodeJS.ProcessEnv = { ...base, BENCH_SMOKE: '1' };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete childEnv[k];
    else childEnv[k] = v;
  }
  const started = performance.now();
  // Its own process group, so a bench's own children (the service, loaders, Chromium) end with it on a timeout.
  const child = spawn(process.execPath, [path.resolve(ROOT, file)], { cwd: ROOT, env: childEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }, timeoutMs);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      const last = lastJsonLine(stdout);
      const reason = timedOut
        ? `it did not finish within ${timeoutMs / 1000} s`
        : code !== 0
          ? `it exited with ${code}: ${stderr.trim().split('\n').slice(-5).join(' | ').slice(0, 600)}`
          : last.ok
            ? undefined
            : last.reason;
      resolve({ ok: reason === undefined, reason, value: last.ok ? last.value : undefined, code, seconds, stdout, stderr });
    });
  });
}

export const packageScripts = (): Record<string, string> =>
  (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
