/** Tests run twice when TEST_DATABASE_URL is set: each database test picks its backends from test/support/backends.ts. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  testTimeout: 60000,
  maxWorkers: 2,
  // Longest files first, by jest's cache or else by CI's last figures (a clean clone has no cache).
  testSequencer: '<rootDir>/scripts/jest-sequencer.js',
  // A worker carrying more than this after a file is replaced before the next: CI's two grew to 4 GB each by mid-run
  // (every suite's app, SDK clients and Chromium drivers leave their modules behind), and their collections slowed all.
  workerIdleMemoryLimit: '1GB',
};
