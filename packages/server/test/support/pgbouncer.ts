// The tests' PgBouncer: bench/pgbouncer.js's (on deploy/pgbouncer.ini as it is, on a free loopback
// port, as the postgres account when root), in front of the machine's PostgreSQL, with the
// password the tests' hubs give it.
// @ts-expect-error: the benchmark's PgBouncer is plain JavaScript, without declarations.
import { startPgBouncer as start } from '../../../../bench/pgbouncer.js';
import { MACHINE_POSTGRES, PGBOUNCER_PASSWORD } from './hub.js';

export interface Bouncer {
  port: number;
  /** `url` with its host and port replaced by PgBouncer's, and the password PgBouncer asks for. */
  through(url: string): string;
  log(): string;
  stop(): Promise<void>;
}

export function startPgBouncer(): Promise<Bouncer> {
  return (start as (url: string, password: string) => Promise<Bouncer>)(MACHINE_POSTGRES, PGBOUNCER_PASSWORD);
}
