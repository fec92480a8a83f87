#!/usr/bin/env node
// Runs jest once, then prints the line CI reads: "N passed, N failed", alone on the last line.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const out = path.join(process.cwd(), '.jest-results.json');
fs.rmSync(out, { force: true });
const env = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules`.trim() };
const jest = require.resolve('jest/bin/jest');
const r = spawnSync(process.execPath, [jest, '--json', `--outputFile=${out}`, ...process.argv.slice(2)], { stdio: 'inherit', env });
let passed = 0;
let failed = 0;
try {
  const results = JSON.parse(fs.readFileSync(out, 'utf8'));
  passed = results.numPassedTests;
  failed = results.numFailedTests + (results.numRuntimeErrorTestSuites ?? 0);
  printSkipReasons(results);
  printSlowest(results);
} catch {
  failed = Math.max(failed, 1);
}
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(r.status === 0 && failed === 0 ? 0 : 1);

/** The files that took longest (CI must stay well under 30 minutes: these are where to look first). */
function printSlowest(results) {
  const files = results.testResults
    .map((f) => ({ name: path.relative(process.cwd(), f.name), s: (f.endTime - f.startTime) / 1000 }))
    .filter((f) => Number.isFinite(f.s))
    .sort((a, b) => b.s - a.s)
    .slice(0, 12);
  const total = (results.testResults.reduce((m, f) => Math.max(m, f.endTime), 0) - results.startTime) / 1000;
  process.stdout.write(
    `\nslowest files (of ${results.testResults.length}, ${total.toFixed(0)} s in all): ${files.map((f) => `${f.name} ${f.s.toFixed(0)} s`).join(', ')}\n`,
  );
}

/** Suites skipped for a missing backend say why in their title ("… (skipped: TEST_DATABASE_URL is not set)"). */
function printSkipReasons(results) {
  const byReason = new Map();
  for (const file of results.testResults) {
    for (const t of file.assertionResults) {
      const m = t.status === 'pending' && t.ancestorTitles.map((a) => /\(skipped: (.+)\)$/.exec(a)).find(Boolean);
      if (!m) continue;
      const r = byReason.get(m[1]) ?? { tests: 0, files: new Set() };
      r.tests += 1;
      r.files.add(path.relative(process.cwd(), file.name));
      byReason.set(m[1], r);
    }
  }
  for (const [reason, r] of byReason) {
    process.stdout.write(`\nskipped ${r.tests} tests in ${r.files.size} files because ${reason}: ${[...r.files].join(', ')}\n`);
  }
}
