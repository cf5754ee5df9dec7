// vitest's `pgbouncer` pass (vitest.config.ts): one PgBouncer on deploy/pgbouncer.ini for all its
// test files, whose hubs go through it (support/hub.ts). Its port reaches the test workers as an
// environment variable: they are started after this runs, with its environment.
import { startPgBouncer } from './pgbouncer.js';

export default async function setup(): Promise<() => Promise<void>> {
  const bouncer = await startPgBouncer();
  process.env.HUB_TEST_PGBOUNCER_PORT = String(bouncer.port);
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
