// Jest's order of test files (jest.config.js: testSequencer): longest first, so two workers end together instead of one
// running a long file alone at the end of the run.
const Sequencer = require('@jest/test-sequencer').default;
const path = require('node:path');

/**
 * Seconds each of the slowest files took in CI's last full run (the "slowest files" line scripts/run-tests.js prints).
 * Jest orders by the durations in its own cache, which a clean clone (CI) does not have: it then orders by file size,
 * and these files are small, so they started last and made the run's tail. A file listed here that no longer exists is
 * ignored; a file missing here only loses its place at the front. The first eight are the run of 2026-12-07 (2,992 s in
 * all; bench smoke's 287 s less the some 30 s its smoke runs were cut by since: about 60 s of benches, two at a time),
 * the rest are from the run before, capped below the eighth's 95 s, as they were not among the slowest of the last.
 */
const CI_SECONDS = {
  'test/bench/smoke.test.ts': 257,
  'test/web/look.test.ts': 160,
  'test/market-data/simulated/simulated-venue.test.ts': 124,
  'test/web/browsing.test.ts': 116,
  'test/replay/run-host.test.ts': 115,
  'test/web/trading.test.ts': 109,
  'test/replay/run-reproducible.test.ts': 99,
  'test/web/replay.test.ts': 95,
  'test/replay/timing-schedules.test.ts': 94,
  'test/limits/run-budget.test.ts': 94,
  'test/registry/page-bounds.test.ts': 93,
  'test/replay/run-events.test.ts': 86,
};

const ROOT = path.resolve(__dirname, '..');

class LongestFirst extends Sequencer {
  sort(tests) {
    const ms = (test) => this.time(test) ?? (CI_SECONDS[path.relative(ROOT, test.path).split(path.sep).join('/')] ?? 0) * 1000;
    const size = (test) => test.context.hasteFS.getSize(test.path) ?? 0;
    return [...tests].sort((a, b) => ms(b) - ms(a) || size(b) - size(a));
  }
}

module.exports = LongestFirst;
