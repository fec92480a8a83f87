// Jest's order of test files (jest.config.js: testSequencer): longest first, so two workers end together instead of one
// running a long file alone at the end of the run.
const Sequencer = require('@jest/test-sequencer').default;
const path = require('node:path');

/**
 * Seconds each of the slowest files took in CI's last full run (the "slowest files" line scripts/run-tests.js prints).
 * Jest orders by the durations in its own cache, which a clean clone (CI) does not have: it then orders by file size,
 * and these files are small, so they started last and made the run's tail. A file listed here that no longer exists is
 * ignored; a file missing here only loses its place at the front. Bench smoke, look, trading, browsing, web/replay and
 * methods/identity are the run of 2026-12-07 afternoon (smoke's 277 s less what its benches were cut by since: 322 s to
 * 234 s alone); the rest are from the runs before, capped below the 63 s of that run's twelfth, as they were not among
 * its slowest.
 */
const CI_SECONDS = {
  'test/bench/smoke.test.ts': 200,
  'test/web/look.test.ts': 193,
  'test/web/trading.test.ts': 117,
  'test/web/browsing.test.ts': 114,
  'test/web/replay.test.ts': 80,
  'test/methods/identity.test.ts': 75,
  'test/market-data/simulated/simulated-venue.test.ts': 62,
  'test/replay/run-host.test.ts': 62,
  'test/replay/run-reproducible.test.ts': 61,
  'test/replay/timing-schedules.test.ts': 60,
  'test/limits/run-budget.test.ts': 60,
  'test/registry/page-bounds.test.ts': 60,
  'test/replay/run-events.test.ts': 60,
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
