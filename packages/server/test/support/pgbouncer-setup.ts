// vitest's `pgbouncer` pass (vitest.config.ts): one PgBouncer on deploy/pgbouncer.ini for all its
// test files, whose hubs go through it (support/hub.ts). Its port reaches this project's workers
// alone through vitest's provide/inject: an environment variable set here would reach every
// project's workers, and send the whole suite through PgBouncer.
import type { TestProject } from 'vitest/node';
import { startPgBouncer } from './pgbouncer.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The port of the `pgbouncer` pass's PgBouncer; not provided in any other project. */
    hubTestPgbouncerPort: number;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const bouncer = await startPgBouncer();
  project.provide('hubTestPgbouncerPort', bouncer.port);
  return async () => {
    // A pass whose hubs all bypassed the pooler would prove nothing: PgBouncer logs each login.
    const logins = bouncer.log().match(/login attempt: db=hub_test_/g)?.length ?? 0;
    await bouncer.stop();
    if (logins === 0) {
      // An error thrown here is printed but leaves vitest's exit code 0.
      console.error('the pgbouncer pass: no hub logged in through PgBouncer');
      process.exitCode = 1;
    }
  };
}
