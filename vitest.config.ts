import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources through the "@hub/source" export
// condition, so tests never depend on a stale build.
const conditions = ['@hub/source', 'module', 'node', 'development|production'];

// Run a second time with their hubs through one PgBouncer in transaction pooling on
// deploy/pgbouncer.ini (issue 29: the API's happy paths through the pooler): installs, triggers,
// dispatch and the daemon's side, projects and runs, accounts and keys; under a minute. (Also
// passed through it, but too slow to run twice: runs-follow, webhooks, schedules.)
const THROUGH_PGBOUNCER = ['configurations', 'dispatch', 'triggers', 'projects-list', 'accounts'].map(
  (name) => `packages/server/test/${name}.test.ts`,
);

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@hub/source'] } },
  test: {
    // Each project names its files (a project's list would add to one here, not replace it).
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
    projects: [
      { extends: true, test: { name: 'hub', include: ['packages/*/test/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'pgbouncer',
          include: THROUGH_PGBOUNCER,
          globalSetup: ['packages/server/test/support/pgbouncer-setup.ts'],
        },
      },
    ],
  },
});
