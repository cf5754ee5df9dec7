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
    // Test files mostly wait on hubs, PostgreSQL and the CLI as child processes: three at a time
    // on two cores took the suite from 12 minutes to 7 with a CPU-bound process beside it (the
    // default, one fewer than the cores, ran one at a time there).
    maxWorkers: 3,
    // Under CI, also a JSON report, from which .ci/run prints a plain "N passed, N failed" line.
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: 'node_modules/.cache/vitest-results.json' }]]
      : ['default'],
    testTimeout: 30_000,
  },
});
