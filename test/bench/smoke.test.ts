import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { POSTGRES_SKIP_REASON } from '../support/backends';
import { CHROMIUM_PATH, CHROMIUM_SKIP_REASON } from '../support/browser';
import { ensureBuilt } from '../support/ensure-built';
import { benchScripts, lastJsonLine, packageScripts, runSmoke, type SmokeResult } from '../support/bench-smoke';

/**
 * Benches that cannot rot (issue 50 item 5): every `bench:*` script of package.json runs its built bench in smoke mode
 * (BENCH_SMOKE=1: tiny data, a second or two of load per phase, the same code paths) and must end with its JSON line.
 * A bench whose needs are missing is skipped with the reason in its title (scripts/run-tests.js prints it).
 */

type Need = 'postgres' | 'chromium';

/**
 * What each bench needs besides the build. A bench missing here fails the test below: a new bench is declared here
 * and so runs in CI from its first day.
 */
const NEEDS: Record<string, Need[]> = {
  'bench:search': ['postgres'],
  'bench:trade': ['postgres'],
  'bench:orders': ['postgres'],
  'bench:amm': ['postgres'],
  'bench:events': ['postgres'],
  'bench:leaderboard': ['postgres'],
  'bench:benchmark': ['postgres'],
  'bench:mcp': [],
  'bench:soak': ['postgres'],
  'bench:start': [],
  'bench:web': ['chromium'],
  'bench:http-server': [],
  'bench:replay': [],
  'bench:ab': ['postgres'],
};

/** A bench's smoke run on a loaded two-core machine. */
const BENCH_TIMEOUT_MS = 240_000;
/**
 * Benches run two at a time: much of a smoke run is waiting (a service's start, idle windows, paced loads at low
 * rates), and the figures of a smoke run are not read, so two side by side cost less wall time than one after another.
 */
const LANES = 2;

function missing(needs: Need[]): string | null {
  if (needs.includes('postgres') && !process.env.TEST_DATABASE_URL) return POSTGRES_SKIP_REASON;
  if (needs.includes('chromium') && !fs.existsSync(CHROMIUM_PATH)) return CHROMIUM_SKIP_REASON;
  return null;
}

/** The benches' throwaway databases go on TEST_DATABASE_URL's server; the in-process ones use the embedded database. */
const env = { BENCH_DATABASE_URL: process.env.TEST_DATABASE_URL, DATABASE_URL: undefined, REDIS_URL: undefined, NODE_OPTIONS: undefined };

const benches = benchScripts(packageScripts());

describe('bench smoke modes', () => {
  test('when package.json lists its benches, then each one says what it needs here', () => {
    expect(benches.map((b) => b.script).sort()).toEqual(Object.keys(NEEDS).sort());
  });

  describe('the checker', () => {
    let dir: string;
    beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-smoke-'))));
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
    const plant = (name: string, body: string) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, body);
      return file;
    };

    test('when a planted bench prints its JSON and then another line, then the check fails and names that line', async () => {
      const file = plant('trailing.js', `console.log(JSON.stringify({ bench: 'planted', rps: 1 })); console.log('done');`);
      const r = await runSmoke(file, {}, 20_000);
      expect(r.code).toBe(0);
      expect(r.ok).toBe(false);
      expect(r.reason).toBe('its last line is not JSON: done');
    });

    test('when a planted bench ends with its JSON but exits non-zero, then the check fails with the exit code', async () => {
      const file = plant('fails.js', `console.log(JSON.stringify({ bench: 'planted' })); console.error('boom'); process.exit(3);`);
      const r = await runSmoke(file, {}, 20_000);
      expect(r.ok).toBe(false);
      expect(r.reason).toBe('it exited with 3: boom');
    });

    test('when a planted bench ends with its JSON object and exits 0, then the check passes, in smoke mode', async () => {
      const file = plant(
        'good.js',
        `console.log('a line'); console.log(JSON.stringify({ smoke: process.env.BENCH_SMOKE, seconds: process.env.BENCH_SECONDS ?? null }));`,
      );
      const before = process.env.BENCH_SECONDS;
      process.env.BENCH_SECONDS = '10'; // a full run's setting in the caller's environment does not reach the smoke run
      try {
        const r = await runSmoke(file, {}, 20_000);
        expect(r.ok).toBe(true);
        expect(r.value).toEqual({ smoke: '1', seconds: null });
      } finally {
        if (before === undefined) delete process.env.BENCH_SECONDS;
        else process.env.BENCH_SECONDS = before;
      }
    });

    test('when a planted bench never ends, then it is killed at its deadline and fails', async () => {
      const file = plant('hangs.js', `console.log('{}'); setInterval(() => {}, 1000);`);
      const r = await runSmoke(file, {}, 1_000);
      expect(r.ok).toBe(false);
      expect(r.reason).toBe('it did not finish within 1 s');
    });

    test('when the last line is a JSON value but not an object, or nothing is printed, then the check fails', () => {
      expect(lastJsonLine('x\n[1,2]\n')).toEqual({ ok: false, reason: 'its last line is JSON but not an object: [1,2]' });
      expect(lastJsonLine('x\n42\n')).toEqual({ ok: false, reason: 'its last line is JSON but not an object: 42' });
      expect(lastJsonLine('\n\n')).toEqual({ ok: false, reason: 'it printed nothing' });
      expect(lastJsonLine('progress\n{"a":1}\n\n')).toEqual({ ok: true, value: { a: 1 } });
    });

    test('when a bench script does not run a built bench, then listing the benches refuses it', () => {
      expect(() => benchScripts({ 'bench:odd': 'node scripts/odd.js', test: 'jest' })).toThrow('bench:odd does not end by running a built bench');
      expect(benchScripts({ 'bench:x': 'npm run build:server --silent && node dist/bench/x.js', start: 'node dist/src/main.js' })).toEqual([
        { script: 'bench:x', file: 'dist/bench/x.js' },
      ]);
    });
  });

  describe('each bench in smoke mode', () => {
    const runnable = benches.filter((b) => missing(NEEDS[b.script] ?? []) === null);
    const results = new Map<string, Promise<SmokeResult>>();
    beforeAll(() => {
      ensureBuilt();
      // Every runnable bench is started here, LANES at a time, in order; each test below waits for its own.
      const done = new Map<string, (r: SmokeResult) => void>();
      for (const b of runnable) results.set(b.script, new Promise((resolve) => done.set(b.script, resolve)));
      let next = 0;
      const lane = async () => {
        while (next < runnable.length) {
          const b = runnable[next++]!;
          done.get(b.script)!(await runSmoke(b.file, env, BENCH_TIMEOUT_MS));
        }
      };
      for (let i = 0; i < LANES; i++) void lane();
    }, 600_000);

    for (const { script, file } of benches) {
      const reason = missing(NEEDS[script] ?? []);
      const title = `${script} (${file})`;
      const describeBench = reason ? (t: string, body: () => void) => describe.skip(`${t} (skipped: ${reason})`, body) : describe;
      describeBench(title, () => {
        test(
          'when run with BENCH_SMOKE=1, then it exits 0 and its last line is one JSON object',
          async () => {
            const r = await results.get(script)!;
            process.stdout.write(`${script} smoke: ${r.seconds.toFixed(1)} s${r.ok ? '' : `; ${r.reason}`}\n`);
            if (!r.ok) throw new Error(`${script} failed its smoke run: ${r.reason}\n--- last output ---\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`);
            expect(r.value).toEqual(expect.any(Object));
          },
          // Its own run and, at worst, the one beside it that started first.
          2 * BENCH_TIMEOUT_MS,
        );
      });
    }
  });
});
