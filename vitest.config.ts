import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Two lanes share the machine (scripts/test.mjs): a test may take twice its time alone.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    setupFiles: ['test/fast-check-setup.ts'],
  },
});
