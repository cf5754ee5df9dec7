// Starts a real hub (packages/server/dist/main.js, as a child process) on an ephemeral port,
// on the embedded PostgreSQL or on a fresh database of the machine's PostgreSQL.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres, { type Sql } from 'postgres';
import { inject } from 'vitest';

export type DatabaseKind = 'embedded' | 'external';

/** The machine's PostgreSQL (the databases `postgres` and `test` exist there). */
export const MACHINE_POSTGRES = process.env.HUB_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The port of the one PgBouncer (deploy/pgbouncer.ini) of vitest's `pgbouncer` pass, set by
 * support/pgbouncer-setup.ts: the hubs started on the machine's PostgreSQL then reach it through
 * PgBouncer in transaction pooling (see `pooled`).
 */
const PGBOUNCER_PORT = pgbouncerPort();

function pgbouncerPort(): string | undefined {
  try {
    return (inject('hubTestPgbouncerPort') as number | undefined)?.toString();
  } catch {
    // Imported outside a test worker (a global setup, by way of support/pgbouncer.ts): no pass.
    return undefined;
  }
}
/** The password the hubs give the tests' PgBouncer (deploy/pgbouncer.ini checks it with SCRAM). */
export const PGBOUNCER_PASSWORD = 'hub-test-pgbouncer';

/** Through PgBouncer only the machine's PostgreSQL is of interest: an embedded one has no pooler. */
export const databases: DatabaseKind[] = PGBOUNCER_PORT === undefined ? ['embedded', 'external'] : ['external'];

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** Limits no test reaches by accident (the most each allows, in a window of a second). */
const UNTHROTTLED = Object.fromEntries(
  [
    'HUB_THROTTLE_AUTH_ADDRESS',
    'HUB_THROTTLE_AUTH_KEY',
    'HUB_THROTTLE_ENROLL_ADDRESS',
    'HUB_THROTTLE_DEVICE_ADDRESS',
  ].map((name) => [name, '1000000/1']),
);

export interface RunningHub {
  url: string;
  adminToken: string;
  dataDir: string;
  databaseUrl: string | undefined;
  process: ChildProcess;
  output: () => string;
  /** SIGTERM, and the exit code once it has stopped. */
  stop(): Promise<number | null>;
}

/** A small pool on a test database (for tests in packages that do not depend on postgres.js). */
export function connect(url: string): Sql {
  return postgres(url, { max: 2, onnotice: () => {} });
}

/** A fresh database on the machine's PostgreSQL; dropped by `drop()`. */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `hub_test_${randomUUID().replace(/-/g, '')}`;
  const admin = postgres(MACHINE_POSTGRES, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(MACHINE_POSTGRES);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const sql = postgres(MACHINE_POSTGRES, { max: 1, onnotice: () => {} });
      await sql.unsafe(`drop database if exists ${name} with (force)`);
      await sql.end();
    },
  };
}

/** `main`: another build's packages/server/dist/main.js (the rolling-upgrade drill's old release). */
export async function startHub(
  options: { databaseUrl?: string; dataDir?: string; env?: Record<string, string>; main?: string } = {},
): Promise<RunningHub> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'hub-test-'));
  const adminToken = `hub_admin_test_${randomBytes(16).toString('hex')}`;
  const child = spawn(process.execPath, [options.main ?? MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      HUB_DATA_DIR: dataDir,
      HUB_ADMIN_TOKEN: adminToken,
      HUB_LOG_LEVEL: 'warn',
      // Every answer in the tests is checked against the OpenAPI document (a mismatch is a 500).
      HUB_VALIDATE_RESPONSES: '1',
      // Tests send many failures from one address and key on purpose; those about throttling set their own limits.
      ...UNTHROTTLED,
      // Stopped at once on SIGTERM; the drain's own tests set HUB_DRAIN_SECONDS.
      HUB_DRAIN_SECONDS: '0',
      ...(options.databaseUrl === undefined ? {} : { DATABASE_URL: options.databaseUrl }),
      ...pooled(options.databaseUrl, options.env),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hub did not start:\n${output}`)), 60_000);
    child.stdout?.on('data', () => {
      const match = /Hub listening on (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`hub exited with ${code}:\n${output}`));
    });
  });
  // 'close', not 'exit': by then everything the hub printed has been read.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    url,
    adminToken,
    dataDir,
    databaseUrl: options.databaseUrl,
    process: child,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** A hub on the given kind of database, and what it takes to clean up after it. */
export async function hubOn(
  kind: DatabaseKind,
  env: Record<string, string> = {},
): Promise<RunningHub & { sql: Sql; close(): Promise<void> }> {
  const database = kind === 'external' ? await freshDatabase() : undefined;
  const hub = await startHub({ databaseUrl: database?.url, env });
  const url = database?.url ?? readFileSync(join(hub.dataDir, 'database-url'), 'utf8').trim();
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  return {
    ...hub,
    sql,
    close: async () => {
      await hub.stop();
      await sql.end();
      await database?.drop();
      rmSync(hub.dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * In the `pgbouncer` pass, a hub on the machine's PostgreSQL (and not set up by its test for a
 * pooler of its own) goes through the shared PgBouncer in transaction pooling, with LISTEN on a
 * direct connection, as README's "Running several hubs" says to run it. The hub's `databaseUrl`
 * stays the direct one, for the test's own queries.
 */
function pooled(url: string | undefined, env: Record<string, string> | undefined): Record<string, string> {
  if (PGBOUNCER_PORT === undefined || url === undefined || env?.HUB_DATABASE_POOLING !== undefined) return {};
  // A multi-host URL (the failover drill's) is no URL to node, and not the machine's PostgreSQL.
  if (!URL.canParse(url) || new URL(url).host !== new URL(MACHINE_POSTGRES).host) return {};
  const via = new URL(url);
  via.hostname = '127.0.0.1';
  via.port = PGBOUNCER_PORT;
  via.password = PGBOUNCER_PASSWORD;
  return { DATABASE_URL: via.toString(), HUB_DATABASE_POOLING: 'transaction', HUB_LISTEN_DATABASE_URL: url };
}

/** Whether a process with this pid exists (one of another account's answers EPERM to a signal 0). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
