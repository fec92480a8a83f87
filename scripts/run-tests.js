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
} catch {
  failed = Math.max(failed, 1);
}
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(r.status === 0 && failed === 0 ? 0 : 1);
