import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources through the "@hub/source" export
// condition, so tests never depend on a stale build.
const conditions = ['@hub/source', 'module', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@hub/source'] } },
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    // The CLI tests run the bundled `hub`: bundled again first if the build is newer.
    globalSetup: ['packages/cli/test/support/bundle.ts'],
    hookTimeout: 120_000,
    // Under CI, also a JSON report, from which .ci/run prints a plain "N passed, N failed" line.
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: 'node_modules/.cache/vitest-results.json' }]]
      : ['default'],
    testTimeout: 30_000,
  },
});
