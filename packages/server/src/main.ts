#!/usr/bin/env node
// Starts the hub: the database (embedded unless DATABASE_URL), migrations, the compile pool and
// the HTTP server; stops them in reverse order on SIGINT and SIGTERM, even mid-start.
import { started as youngGenerationMayGrow } from './young-generation.js';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constants } from 'node:os';
import { join } from 'node:path';
import { dashboardStore } from './dashboard/store.js';
import { createApp, Hub } from './app.js';
import { createCompilePool } from './compile/pool.js';
import { dataDirSecret, makeAdminToken, makeDatabasePassword, readConfig } from './config.js';
import { connectDatabase } from './db/connect.js';
import { startEmbedded, stopEmbeddedNow } from './db/embedded.js';
import { DatabaseHealth } from './db/health.js';
import { chooseListener } from './db/listener.js';
import { migrate, pendingMigrations } from './db/migrate.js';
import { migrateCommand, USAGE } from './migrate-command.js';
import { setupLink } from './setup-link.js';
import { Parts } from './parts.js';
import { RELEASE } from './release.js';
import { RetentionRepository, startSweeper } from './retention/index.js';
import { AssignmentNotices, DEFAULT_TIMING, ExecutionRepository, OUTPUT_CHANNEL, Wakeups } from './runs/index.js';
import { clockOf, startScheduler } from './schedules/index.js';
import { startGitHubWorker } from './github/index.js';
import { startWebhookWorker } from './webhooks/index.js';
import { createLogger, parseLevel } from './http/logger.js';
import { drainable, drainBeforeStop } from './http/shutdown.js';
import { startingGate } from './http/starting.js';

/** Large enough for the largest legal request as clients send it (see docs/decisions.md). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** How long requests in flight may take to answer once the hub stops; then their connections are cut. */
const DRAIN_MS = 10_000;
/**
 * A terminal's Ctrl-C signals the whole process group, and pnpm (or npm) passes it on to the hub
 * as well: signals this close to the first are that same request, not a second one.
 */
const SAME_REQUEST_MS = 1_000;
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

const config = readConfig(process.env);
const log = createLogger(parseLevel(config.logLevel));

/** What has been started, to stop in reverse order. */
const running = new Parts();
let ready = false;
let stopRequested: string | undefined;
let stopRequestedAt = 0;
let stopping = false;
let stoppingNow = false;
/** Seconds the instance drains before it stops (stop() sets it from the signal). */
let drainFor = 0;

class StopDuringStartup extends Error {}

/**
 * The first signal stops the hub in order (a signal while starting is acted on once the part being
 * started is up); a second one, later, stops it at once.
 */
function onSignal(signal: NodeJS.Signals): void {
  if (stopRequested === undefined) {
    stopRequested = signal;
    stopRequestedAt = Date.now();
    if (ready) void stop(signal, 0);
  } else if (Date.now() - stopRequestedAt >= SAME_REQUEST_MS) {
    void stopNow(signal);
  }
}

async function stop(reason: string, code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  // A process manager's or orchestrator's stop drains first; Ctrl-C (SIGINT) does not wait.
  drainFor = reason === 'SIGTERM' ? config.drainSeconds : 0;
  const began = performance.now();
  log.info('stopping', { reason });
  await running.stopAll(log);
  log.info('stopped', { ms: Math.round(performance.now() - began) });
  process.exit(code);
}

/** Requests in flight are cut off and PostgreSQL (when embedded) stops without a checkpoint. */
async function stopNow(signal: NodeJS.Signals): Promise<void> {
  if (stoppingNow) return;
  stoppingNow = true;
  log.warn('stopping at once', { reason: `${signal} again` });
  process.stderr.write(`hub: stopping at once (${signal} again): requests in flight were cut off\n`);
  await stopEmbeddedNow();
  process.exit(128 + constants.signals[signal]);
}

/** Registers a started part, to be stopped on exit (Parts); gives up starting if a signal came meanwhile. */
function started(name: string, stopOne: () => Promise<unknown>, options: { bounded?: boolean } = {}): void {
  running.add(name, stopOne, options);
  phase(name);
}

/** A point of start-up (logged at debug level, for tests that signal at each): a signal that came meanwhile stops here. */
function phase(name: string, fields: Record<string, unknown> = {}): void {
  log.debug('started part', { name, ...fields });
  if (stopRequested !== undefined) throw new StopDuringStartup();
}

async function main(): Promise<void> {
  for (const signal of SIGNALS) process.on(signal, () => onSignal(signal));

  // Listening first, with the request listener attached: while the rest starts, every request is
  // answered 503 `not_ready` at once. With PORT=0 the public URL, and so the problem types, name
  // the bound port.
  const server = createServer();
  const drain = drainable(server);
  let origin = '';
  const gate = startingGate(() => config.problemBase ?? origin);
  server.on('request', gate.listener);
  server.listen(config.port, config.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  origin = config.publicUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  phase('listening', { url: origin });

  const admin = process.env.HUB_ADMIN_TOKEN
    ? { value: process.env.HUB_ADMIN_TOKEN, created: false }
    : await dataDirSecret(config.dataDir, 'admin-token', makeAdminToken);

  let url = config.databaseUrl;
  if (url === undefined) {
    const password = await dataDirSecret(config.dataDir, 'postgres-password', makeDatabasePassword);
    const embedded = await startEmbedded(config.dataDir, password.value, log);
    // Unbounded: its stop sends SIGQUIT after a while, and the hub exits once PostgreSQL has.
    started('embedded PostgreSQL', embedded.stop, { bounded: false });
    url = embedded.url;
    // For operators (psql "$(cat .hub-data/database-url)") and tests; the port changes each start.
    await writeFile(join(config.dataDir, 'database-url'), `${url}\n`, { mode: 0o600 });
  }
  const sql = connectDatabase(url, { max: 10, name: 'hub', timeouts: config.database });
  started('database connections', () => sql.end({ timeout: 5 }));
  const authSql = connectDatabase(url, {
    max: 2,
    name: 'hub-auth',
    timeouts: config.database,
    parameters: { synchronous_commit: 'off' },
  });
  started('key-check connections', () => authSql.end({ timeout: 5 }));
  // Watches the database from here on: while it is away, requests that need it answer 503 at once.
  const health = await DatabaseHealth.start(url, config.database, log);
  started('database health', () => health.close());
  if (config.migrateOnStart) {
    const applied = await migrate(sql, RELEASE);
    if (applied.length > 0) log.info('migrations applied', { applied, release: RELEASE });
  } else {
    // The operator migrates as a step of its own (hub-server migrate): never start on a schema this release does not know.
    const pending = await pendingMigrations(sql);
    if (pending.length > 0)
      throw new Error(
        `the database lacks ${pending.length} migration(s) of release ${RELEASE} (${pending.join(', ')}), and HUB_MIGRATE_ON_START=false: run hub-server migrate first`,
      );
  }

  const pool = createCompilePool({
    memoryMb: config.compile.memoryMb,
    queueCharacters: config.compile.queueCharacters,
    log,
  });
  started('compile pool', pool.close);

  // Waits for requests in flight to answer (each closing its connection), on a database still up.
  started('HTTP server', () =>
    drain.drained(DRAIN_MS, (inFlight) =>
      log.warn('requests still in flight as the hub stops; their connections are cut', { inFlight, afterMs: DRAIN_MS }),
    ),
  );
  // Registered after the server, so stopped before it: waiting long-polls answer at once, and
  // the server's close is not held up by them.
  // Where NOTIFY is heard: DATABASE_URL's connections, HUB_LISTEN_DATABASE_URL's, or none (polling).
  const listener = await chooseListener(sql, { listenUrl: config.listenDatabaseUrl, timeouts: config.database, log });
  started('notifications', () => listener.close());
  const wakeups = await Wakeups.listen(listener);
  started('assignment wake-ups', () => wakeups.close());
  // Likewise for output streams: each ends (with its client to reconnect elsewhere) as the hub stops.
  const outputWakeups = await Wakeups.listen(listener, OUTPUT_CHANNEL);
  started('output wake-ups', () => outputWakeups.close());
  // A database that goes away ends the long-polls and streams waiting on it (503; streams end).
  health.onChange((down) => {
    if (down) for (const waiting of [wakeups, outputWakeups]) waiting.wakeAll();
  });
  const hub = new Hub(
    sql,
    pool.compile,
    log,
    {
      problemBase: config.problemBase ?? origin,
      publicUrl: origin,
      adminToken: admin.value,
      maxBodyBytes: MAX_BODY_BYTES,
      validateResponses: process.env.HUB_VALIDATE_RESPONSES === '1',
      timing: config.timing,
      deviceLogin: config.deviceLogin,
      cliCredentials: config.cliCredentials,
      streamRecheckMs: config.streamRecheckMs,
      throttle: config.throttle,
      trustProxy: config.trustProxy,
      ...(config.github === undefined ? {} : { github: config.github }),
      ...(config.metricsToken === undefined ? {} : { metricsToken: config.metricsToken }),
      webhooks: config.webhooks,
      metrics: config.metrics,
    },
    authSql,
    wakeups,
    outputWakeups,
    health,
  );
  gate.open(createApp(hub));
  const retention = { repository: new RetentionRepository(sql, config.retention), everyMs: config.retention.everyMs };
  const executions = new ExecutionRepository(sql, config.timing);
  const sweeper = startSweeper(executions, log, config.sweepEveryMs, health, retention);
  started('sweeper', () => sweeper.close());
  const notices = new AssignmentNotices(authSql, log);
  const scheduler = await startScheduler({
    sql,
    log,
    clock: clockOf(process.env),
    timing: config.timing ?? DEFAULT_TIMING,
    wake: (daemonId) => notices.wake(daemonId),
    health,
    listener,
  });
  started('scheduler', () => scheduler.close());
  if (config.github !== undefined) {
    const github = await startGitHubWorker({
      sql,
      log,
      config: config.github,
      timing: config.timing ?? DEFAULT_TIMING,
      publicUrl: origin,
      wake: (daemonId) => notices.wake(daemonId),
      health,
      listener,
    });
    hub.github = github;
    started('github worker', () => github.close());
  }
  const webhooks = await startWebhookWorker({
    sql,
    log,
    settings: config.webhooks,
    offlineAfterMs: (config.timing ?? DEFAULT_TIMING).offlineAfterMs,
    health,
    listener,
  });
  started('webhook deliverer', () => webhooks.close());
  // The first thing a stop does: no new connections, and no more keep-alive.
  started('new connections', async () => drain.stopAccepting());
  // Before that, on SIGTERM, the drain (http/shutdown.ts, drainBeforeStop).
  started('drain', () => drainBeforeStop(drainFor, { hub, drain, waits: [wakeups, outputWakeups], log }), {
    bounded: false,
  });

  log.info('hub listening', { url: origin, database: config.databaseUrl === undefined ? 'embedded' : 'external' });
  const tokenLine = admin.created
    ? `Admin token (shown once; also in ${config.dataDir}/admin-token): ${admin.value}\n`
    : '';
  phase('setup link');
  const setupLine = await setupLink(dashboardStore(sql), config.dataDir, origin);
  process.stdout.write(`${tokenLine}${setupLine}Hub listening on ${origin}\n`);
}

const [command, ...args] = process.argv.slice(2);
if (command === 'migrate') void migrateCommand(args, process.env).then((code) => process.exit(code));
else if (command === '--help' || command === '-h') process.stdout.write(USAGE);
else if (command !== undefined) {
  process.stderr.write(`hub-server: unknown command ${command}\n\n${USAGE}`);
  process.exitCode = 2;
} else start();

function start(): void {
  main().then(
    () => {
      ready = true;
      // A signal in start-up's last moments (after its last phase) was left for now.
      if (stopRequested !== undefined) return stop(`${stopRequested} while starting`, 0);
      youngGenerationMayGrow();
    },
    (error: unknown) => {
      if (error instanceof StopDuringStartup) return stop(`${stopRequested} while starting`, 0);
      process.stderr.write(`hub: ${error instanceof Error ? error.message : String(error)}\n`);
      return stop('failed to start', 1);
    },
  );
}
