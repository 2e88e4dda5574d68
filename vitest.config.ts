import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Prints one line when the genuine Relay fixtures are absent and their tests were skipped.
    globalSetup: ['test/fixtures/relayFixturesNotice.ts'],
    // e2e tests spawn anvil chains; two cores on CI, so keep the pool small.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
