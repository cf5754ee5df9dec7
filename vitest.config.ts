import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@hub/source'] },
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
