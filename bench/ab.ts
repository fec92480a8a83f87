import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median, round } from './support/harness';
import { benchSetting, SMOKE } from './support/smoke';
import { throughputs } from './support/throughputs';

/**
 * npm run bench:ab — issue 50's speed bar as one command: the trade, order and pool benches of this build and of a base
 * commit (default c169af9, the engine room before it was rebuilt) built beside it in a git worktree, run alternately on
 * the same machine in the same minutes (base, this, base, this…), so drift falls on both alike. Each throughput figure
 * (every `rps`, `perS` and `…PerSecond` in a bench's JSON line, by its path) is compared as this build's median over the base's;
 * the bar: none below 0.7 (no figure more than 30 % below the old build's).
 *   BENCH_AB_BASE   the base commit (default c169af9)
 *   BENCH_AB_BENCHES  which benches (default trade,orders,amm)
 *   BENCH_AB_RUNS   alternations per bench (default 2)
 * Every other BENCH_* setting reaches both builds alike. In smoke mode (BENCH_SMOKE=1) this build is its own base (no
 * second build: CI has no time for one) and only bench:amm runs, once each: the alternation and the comparison run,
 * their figures mean nothing.
 * Last line: one JSON object with every figure.
 */
const ROOT = path.resolve(__dirname, '../..');
const BASE = process.env.BENCH_AB_BASE ?? 'c169af9';
const BENCHES = (process.env.BENCH_AB_BENCHES ?? (SMOKE ? 'amm' : 'trade,orders,amm')).split(',').filter(Boolean);
const RUNS = benchSetting('BENCH_AB_RUNS', 2, 1);
const BAR = 0.7;

/**
 * What the base needs before its benches run at all: at c169af9 bench:orders inserted resting orders without the
 * `sized_by` that migration 45 had made NOT NULL (issue 50's "benches rot"); the same one-line fix main made (bf39b44).
 */
const BASE_FIXES: Array<{ file: string; from: string; to: string }> = [
  {
    file: 'bench/orders.ts',
    from: 'state, reserved_cash_micro, created_at, updated_at)',
    to: 'state, reserved_cash_micro, created_at, updated_at, sized_by)',
  },
  {
    file: 'bench/orders.ts',
    from: "now() - interval '1 hour' + i * interval '1 millisecond', now()\n",
    to: "now() - interval '1 hour' + i * interval '1 millisecond', now(), 'amount'\n",
  },
];

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${path.basename(cwd)}) failed: ${r.stderr || r.stdout}`.slice(0, 4000));
  return r.stdout;
}

/** The base commit checked out beside this tree, its fixes applied, built with this tree's node_modules (same lockfile). */
function buildBase(): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ab-'));
  run('git', ['worktree', 'add', '--detach', dir, BASE], ROOT);
  const remove = () => {
    spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: ROOT });
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    for (const f of BASE_FIXES) {
      const file = path.join(dir, f.file);
      const text = fs.readFileSync(file, 'utf8');
      if (text.includes(f.from)) fs.writeFileSync(file, text.replace(f.from, f.to));
    }
    run('npx', ['tsc', '-p', 'tsconfig.build.json'], dir);
    return { dir, remove };
  } catch (err) {
    remove();
    throw err;
  }
}

/** One bench of one build: its JSON line (the last line that is a bench's JSON object; what else it printed goes to stderr). */
function benchOnce(dir: string, bench: string): Record<string, unknown> {
  const out = run(process.execPath, [path.join(dir, 'dist/bench', `${bench}.js`)], dir);
  process.stderr.write(out);
  const line = out
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{"bench":'));
  if (!line) throw new Error(`bench:${bench} in ${dir} printed no JSON line`);
  return JSON.parse(line) as Record<string, unknown>;
}

async function main(): Promise<void> {
  const base = SMOKE ? { dir: ROOT, remove: () => {} } : buildBase();
  log(`A/B: this build against ${SMOKE ? 'itself (smoke)' : BASE}; ${BENCHES.join(', ')}; ${RUNS} alternation(s) each`);
  const benches: Record<string, { ratios: Record<string, number>; worst: { figure: string; ratio: number } | null }> = {};
  try {
    for (const bench of BENCHES) {
      const seen: { base: Array<Record<string, number>>; head: Array<Record<string, number>> } = { base: [], head: [] };
      for (let r = 0; r < RUNS; r += 1) {
        seen.base.push(throughputs(benchOnce(base.dir, bench)));
        seen.head.push(throughputs(benchOnce(ROOT, bench)));
      }
      const ratios: Record<string, number> = {};
      for (const figure of Object.keys(seen.base[0]!)) {
        // A figure the base could not give (0: nothing completed in its window) has no ratio; this build's 0 against a
        // base's figure is a ratio of 0, and fails the bar.
        if (!seen.head.every((h) => figure in h) || median(seen.base.map((b) => b[figure]!)) === 0) continue;
        ratios[figure] = round(median(seen.head.map((h) => h[figure]!)) / median(seen.base.map((b) => b[figure]!)), 3);
      }
      if (Object.keys(ratios).length === 0)
        log(
          `bench:${bench}: no figure in common (base: ${Object.keys(seen.base[0]!).join(', ') || 'none'}; this: ${Object.keys(seen.head[0]!).join(', ') || 'none'})`,
        );
      const worst = Object.entries(ratios).sort((a, b) => a[1] - b[1])[0];
      benches[bench] = { ratios, worst: worst ? { figure: worst[0], ratio: worst[1] } : null };
      log(
        `bench:${bench}: ${Object.entries(ratios)
          .map(([f, x]) => `${f} ${x}`)
          .join(', ')}`,
      );
    }
  } finally {
    base.remove();
  }
  const worst = Object.values(benches)
    .map((b) => b.worst)
    .filter((w): w is { figure: string; ratio: number } => w !== null)
    .sort((a, b) => a.ratio - b.ratio)[0];
  log(`worst figure against the base: ${worst ? `${worst.figure} ${worst.ratio}` : 'none compared'} (bar ≥ ${BAR})`);
  log(
    JSON.stringify({
      bench: 'ab',
      base: SMOKE ? 'self' : BASE,
      runs: RUNS,
      benches,
      worst: worst ?? null,
      // A bench that compared nothing (its figures renamed, or none printed) is not met: it was not measured.
      targets: { bar: BAR, met: worst !== undefined && worst.ratio >= BAR && Object.values(benches).every((b) => b.worst !== null) },
    }),
  );
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
