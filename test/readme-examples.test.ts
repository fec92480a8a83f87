import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { backends } from './support/backends';
import { startTestApp, type TestApp } from './support/app';
import { docPages, expectedCalls, pairs, shellBlocks, shownFacts } from './support/doc-examples';

/**
 * The README's examples run as written: every shell block of README.md and docs/ marked `<!-- example: run -->` is run by
 * bash, with the real curl and jq, against a started service (the page's blocks in order, as one session, so a later
 * block uses the variables of an earlier one). Only the address changes: http://localhost:3000 becomes the test
 * service's. Each curl call is recorded by a shim on PATH (status and body, the body passed through untouched), and is
 * checked against the `# →` line under it: the status it names (else a 2xx), every key it names, and every value it
 * writes out in full. Blocks that cannot run here say why in their marker, and a block with no marker fails the test.
 */
const run = promisify(execFile);
const TOOLS = ['/usr/bin/curl', '/usr/bin/jq', '/usr/bin/bash'];
const missing = TOOLS.filter((p) => !existsSync(p));

const runnable = docPages()
  .map((file) => ({ file, blocks: shellBlocks(file).filter((b) => b.marker === 'run') }))
  .filter((p) => p.blocks.length > 0);

describe('the shell examples of README.md and docs/', () => {
  test('every shell example says whether it is run here, and one that is not says why', () => {
    const unmarked: string[] = [];
    for (const file of docPages())
      for (const b of shellBlocks(file)) {
        if (b.marker === null) unmarked.push(`${file}:${b.line} has no <!-- example: run --> or <!-- example: not run (why) --> above it`);
        else if (b.marker !== 'run' && !/^not run\b.*\(.{10,}\)$/.test(b.marker)) unmarked.push(`${file}:${b.line}: "${b.marker}" gives no reason`);
      }
    expect(unmarked).toEqual([]);
    // The README's first session is among what runs, so this test cannot pass by running nothing.
    expect(runnable.find((p) => p.file === 'README.md')?.blocks.length).toBeGreaterThanOrEqual(2);
  });
});

const suite = missing.length ? describe.skip : describe;
suite.each(backends().slice(0, 1))(
  `the runnable examples, run as written on $name${missing.length ? ` (skipped: ${missing.join(', ')} missing)` : ''}`,
  (backend) => {
    let t: TestApp;
    let dir: string;
    beforeAll(async () => {
      t = await startTestApp(backend, { listen: true, background: false });
      await t.services.marketSync.runOnce({ force: true });
      dir = mkdtempSync(join(tmpdir(), 'doc-examples-'));
      // The shim: records each call's status and body for the checks below and passes the body on, as curl -s would.
      writeFileSync(
        join(dir, 'curl'),
        [
          '#!/usr/bin/bash',
          'n=$(( $(cat "$DOC_LOG/count") + 1 )); echo "$n" > "$DOC_LOG/count"',
          '/usr/bin/curl "$@" -o "$DOC_LOG/$n.body" -w \'%{http_code}\' > "$DOC_LOG/$n.status" || exit $?',
          'cat "$DOC_LOG/$n.body"',
          '',
        ].join('\n'),
      );
      chmodSync(join(dir, 'curl'), 0o755);
    }, 60_000);
    afterAll(async () => {
      rmSync(dir, { recursive: true, force: true });
      await t.close();
    });

    test.each(runnable.map((p) => [p.file, p.blocks] as const))(
      'when %s is run as written, then it exits cleanly and every curl answers what its # → line says',
      async (file, blocks) => {
        const script = blocks.map((b) => b.code).join('\n');
        const log = mkdtempSync(join(dir, 'log-'));
        writeFileSync(join(log, 'count'), '0');
        const out = await run('/usr/bin/bash', ['-e', '-o', 'pipefail', '-c', script.replaceAll('http://localhost:3000', t.baseUrl)], {
          env: { ...process.env, PATH: `${dir}:${process.env.PATH}`, DOC_LOG: log },
          timeout: 90_000,
        }).catch((e: { code?: number; stdout?: string; stderr?: string }) => {
          throw new Error(`${file}: the examples failed (exit ${e.code}):\n${e.stderr}\n${e.stdout}`);
        });
        expect(out.stderr).toBe('');

        const calls = expectedCalls(script);
        expect(Number(readFileSync(join(log, 'count'), 'utf8'))).toBe(calls.length);
        calls.forEach((call, i) => {
          const where = `${file}, call ${i + 1}: ${call.text}`;
          const status = Number(readFileSync(join(log, `${i + 1}.status`), 'utf8'));
          const body = readFileSync(join(log, `${i + 1}.body`), 'utf8');
          if (call.status !== null) expect({ where, status }).toEqual({ where, status: call.status });
          else expect({ where, ok: status >= 200 && status < 300 }).toEqual({ where, ok: true });
          if (!call.shown) return;
          const found = pairs(JSON.parse(body));
          const { keys, values } = shownFacts(call.shown);
          const absent = keys.filter((k) => !found.some(([key]) => key === k));
          expect({ where, absent }).toEqual({ where, absent: [] });
          const differing = values.filter(([k, v]) => !found.some(([key, value]) => key === k && value === v));
          expect({ where, differing }).toEqual({ where, differing: [] });
        });
        rmSync(log, { recursive: true, force: true });
      },
      120_000,
    );
  },
);
