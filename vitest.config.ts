import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources through the "@hub/source" export
// condition, so tests never depend on a stale build.
const conditions = ['@hub/source', 'module', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@hub/source'] } },
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
