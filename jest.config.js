/** Tests run twice when TEST_DATABASE_URL is set: each database test picks its backends from test/support/backends.ts. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  testTimeout: 60000,
  maxWorkers: 2,
};
