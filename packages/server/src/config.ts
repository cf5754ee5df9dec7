import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { generateToken } from './auth/secrets.js';
import { DEFAULT_COMPILE_MEMORY_MB } from './compile/pool.js';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from './db/connect.js';
import { DEFAULT_THROTTLE, THROTTLE_ENV, type PolicyName, type ThrottlePolicies } from './auth/throttle.js';
import { DEFAULT_RETENTION, type RetentionPolicy } from './retention/index.js';
import { DEFAULT_TIMING, type DispatchTiming } from './runs/index.js';
import { DEFAULT_DEVICE_LOGIN } from './logins/index.js';
import { DEFAULT_CLI_CREDENTIAL_EXPIRY, type CliCredentialExpiry } from './auth/api-key.js';
import { DEFAULT_STREAM_RECHECK_MS } from './runs/index.js';
import { readGitHubConfig, type GitHubConfig } from './github/config.js';
import { days, milliseconds, seconds, whole } from './config-values.js';
import { readWebhookSettings, type WebhookSettings } from './webhooks/settings.js';

export interface Config {
  host: string;
  port: number;
  databaseUrl: string | undefined;
  /** HUB_DB_CONNECT_TIMEOUT_MS, HUB_DB_STATEMENT_TIMEOUT_MS, HUB_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS (docs/decisions.md, Database faults). */
  database: DatabaseTimeouts;
  /** HUB_LISTEN_DATABASE_URL: a direct connection (not through a pooler) for LISTEN; unset, DATABASE_URL's. */
  listenDatabaseUrl: string | undefined;
  dataDir: string;
  /** HUB_PUBLIC_URL; unset means http://HOST:PORT with the port actually bound. */
  publicUrl: string | undefined;
  /** HUB_PROBLEM_BASE; unset means the public URL. */
  problemBase: string | undefined;
  logLevel: string | undefined;
  /** The daemon protocol's clocks: 30 s each (DECISIONS.md); shorter ones are for tests. */
  timing: DispatchTiming;
  /** How often this instance looks for lost and timed-out executions. */
  sweepEveryMs: number;
  /** HUB_RETAIN_RUNS_DAYS, HUB_RETAIN_REVISIONS_DAYS, HUB_RETAIN_REVISIONS_KEPT, HUB_RETAIN_EVERY_MS (docs/decisions.md, Sweeps and retention). */
  retention: RetentionPolicy & { everyMs: number };
  /** `hub login`'s device codes: at most 10 minutes of life, 5 s between polls; shorter ones are for tests. */
  deviceLogin: { lifetimeSeconds: number; intervalSeconds: number };
  /** HUB_CLI_CREDENTIAL_IDLE_DAYS, HUB_CLI_CREDENTIAL_LIFETIME_DAYS: a CLI credential expires this long after its last use, and after its creation (docs/decisions.md, Access ends when a person leaves). */
  cliCredentials: CliCredentialExpiry;
  /** HUB_STREAM_RECHECK_MS: how often an output stream checks its credential again (5 s; shorter is for tests). */
  streamRecheckMs: number;
  /** HUB_THROTTLE_*: each policy's failures allowed per window (docs/decisions.md, Throttling). */
  throttle: ThrottlePolicies;
  /** HUB_TRUST_PROXY: Express's `trust proxy`; unset, a request's address is its socket's peer. */
  trustProxy: number | string | undefined;
  /** HUB_COMPILE_MEMORY_MB, HUB_COMPILE_QUEUE_CHARACTERS: each compile worker's heap, and the documents compiling or waiting (docs/decisions.md, Bodies and compiles under abuse). */
  compile: { memoryMb: number; queueCharacters: number | undefined };
  /** HUB_GITHUB_*: the hub's GitHub App (DECISIONS.md, GitHub); undefined when GitHub is off. */
  github: GitHubConfig | undefined;
  /** HUB_METRICS_TOKEN (DECISIONS.md, Metrics). */
  metricsToken: string | undefined;
  /** HUB_MIGRATE_ON_START: false leaves migrations to `hub-server migrate` (the hub refuses to start while one is missing). */
  migrateOnStart: boolean;
  /** HUB_DRAIN_SECONDS: on SIGTERM, how long the instance goes on serving, /readyz answering 503, before it stops. */
  drainSeconds: number;
  /** HUB_WEBHOOK_* (DECISIONS.md, Outbound webhooks). */
  webhooks: WebhookSettings;
  /** HUB_METRICS: `off` takes GET /metrics (404) and the counting of requests away (docs/decisions.md, Metrics). */
  metrics: boolean;
}

/** The environment variables of DECISIONS.md, Operating the hub. */
export function readConfig(env: NodeJS.ProcessEnv): Config {
  const host = env.HOST || '127.0.0.1';
  const port = env.PORT === undefined || env.PORT === '' ? 8080 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, not "${env.PORT}"`);
  return {
    host,
    port,
    databaseUrl: env.DATABASE_URL || undefined,
    database: {
      connectTimeoutMs: milliseconds(env, 'HUB_DB_CONNECT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.connectTimeoutMs),
      statementTimeoutMs: milliseconds(
        env,
        'HUB_DB_STATEMENT_TIMEOUT_MS',
        DEFAULT_DATABASE_TIMEOUTS.statementTimeoutMs,
      ),
      idleInTransactionTimeoutMs: milliseconds(
        env,
        'HUB_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS',
        DEFAULT_DATABASE_TIMEOUTS.idleInTransactionTimeoutMs,
      ),
      transactionPooling: pooling(env.HUB_DATABASE_POOLING),
    },
    listenDatabaseUrl: env.HUB_LISTEN_DATABASE_URL || undefined,
    dataDir: resolve(env.HUB_DATA_DIR || '.hub-data'),
    publicUrl: env.HUB_PUBLIC_URL ? env.HUB_PUBLIC_URL.replace(/\/+$/, '') : undefined,
    problemBase: env.HUB_PROBLEM_BASE ? env.HUB_PROBLEM_BASE.replace(/\/+$/, '') : undefined,
    logLevel: env.HUB_LOG_LEVEL,
    timing: {
      offlineAfterMs: milliseconds(env, 'HUB_DAEMON_OFFLINE_AFTER_MS', DEFAULT_TIMING.offlineAfterMs),
      redeliverAfterMs: milliseconds(env, 'HUB_REDELIVER_AFTER_MS', DEFAULT_TIMING.redeliverAfterMs),
      timeoutGraceMs: milliseconds(env, 'HUB_TIMEOUT_GRACE_MS', DEFAULT_TIMING.timeoutGraceMs),
    },
    sweepEveryMs: milliseconds(env, 'HUB_SWEEP_EVERY_MS', 5_000),
    retention: {
      runsDays: days(env, 'HUB_RETAIN_RUNS_DAYS', DEFAULT_RETENTION.runsDays),
      revisionsDays: days(env, 'HUB_RETAIN_REVISIONS_DAYS', DEFAULT_RETENTION.revisionsDays),
      revisionsKept: whole(
        env,
        'HUB_RETAIN_REVISIONS_KEPT',
        DEFAULT_RETENTION.revisionsKept,
        0,
        1_000_000,
        'a whole number of revisions',
      ),
      everyMs: milliseconds(env, 'HUB_RETAIN_EVERY_MS', DEFAULT_RETAIN_EVERY_MS),
    },
    deviceLogin: {
      lifetimeSeconds: seconds(env, 'HUB_DEVICE_CODE_LIFETIME_SECONDS', DEFAULT_DEVICE_LOGIN.lifetimeSeconds, 600),
      intervalSeconds: seconds(env, 'HUB_DEVICE_POLL_INTERVAL_SECONDS', DEFAULT_DEVICE_LOGIN.intervalSeconds, 60),
    },
    cliCredentials: {
      idleDays: whole(
        env,
        'HUB_CLI_CREDENTIAL_IDLE_DAYS',
        DEFAULT_CLI_CREDENTIAL_EXPIRY.idleDays,
        1,
        36_500,
        'a whole number of days',
      ),
      lifetimeDays: whole(
        env,
        'HUB_CLI_CREDENTIAL_LIFETIME_DAYS',
        DEFAULT_CLI_CREDENTIAL_EXPIRY.lifetimeDays,
        1,
        36_500,
        'a whole number of days',
      ),
    },
    streamRecheckMs: whole(
      env,
      'HUB_STREAM_RECHECK_MS',
      DEFAULT_STREAM_RECHECK_MS,
      100,
      60_000,
      'a whole number of milliseconds',
    ),
    throttle: Object.fromEntries(
      (Object.keys(DEFAULT_THROTTLE) as PolicyName[]).map((policy) => [
        policy,
        rate(env, THROTTLE_ENV[policy], DEFAULT_THROTTLE[policy]),
      ]),
    ) as ThrottlePolicies,
    trustProxy: trustProxy(env.HUB_TRUST_PROXY),
    compile: {
      memoryMb: whole(
        env,
        'HUB_COMPILE_MEMORY_MB',
        DEFAULT_COMPILE_MEMORY_MB,
        16,
        65_536,
        'a whole number of megabytes',
      ),
      queueCharacters:
        env.HUB_COMPILE_QUEUE_CHARACTERS === undefined || env.HUB_COMPILE_QUEUE_CHARACTERS === ''
          ? undefined
          : whole(env, 'HUB_COMPILE_QUEUE_CHARACTERS', 0, 0, 1_000_000_000, 'a whole number of characters'),
    },
    github: readGitHubConfig(env),
    metricsToken: metricsToken(env.HUB_METRICS_TOKEN),
    migrateOnStart: migrateOnStart(env.HUB_MIGRATE_ON_START),
    drainSeconds: whole(env, 'HUB_DRAIN_SECONDS', DEFAULT_DRAIN_SECONDS, 0, 300, 'a whole number of seconds'),
    webhooks: readWebhookSettings(env),
    metrics: metricsSwitch(env.HUB_METRICS),
  };
}

/** HUB_METRICS: `on` (the default) or `off`. */
function metricsSwitch(raw: string | undefined): boolean {
  const value = raw?.trim().toLowerCase() ?? '';
  if (value === '' || value === 'on') return true;
  if (value === 'off') return false;
  throw new Error(`HUB_METRICS must be on or off, not "${raw}"`);
}

/** HUB_METRICS_TOKEN: at least 16 characters (a scrape's only credential), printable, no spaces. */
function pooling(raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw === 'session') return false;
  if (raw === 'transaction') return true;
  throw new Error(`HUB_DATABASE_POOLING must be session or transaction, not "${raw}"`);
}

function migrateOnStart(raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw === 'true') return true;
  if (raw === 'false') return false;
  throw new Error(`HUB_MIGRATE_ON_START must be true or false, not "${raw}"`);
}

function metricsToken(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  if (!/^[\x21-\x7e]{16,512}$/.test(raw))
    throw new Error(
      'HUB_METRICS_TOKEN must be 16 to 512 printable characters without spaces (such as the output of openssl rand -hex 32)',
    );
  return raw;
}

/** `<limit>/<window seconds>`, e.g. `30/300`: at most 30 counted in 300 s. */
function rate(env: NodeJS.ProcessEnv, name: string, fallback: { limit: number; windowSeconds: number }) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const match = /^(\d{1,7})\/(\d{1,5})$/.exec(raw.trim());
  const limit = Number(match?.[1]);
  const windowSeconds = Number(match?.[2]);
  if (match === null || limit < 1 || limit > 1_000_000 || windowSeconds < 1 || windowSeconds > 86_400) {
    throw new Error(
      `${name} must be <limit>/<window seconds> (a limit from 1 to 1000000, a window from 1 to 86400 s), such as ${fallback.limit}/${fallback.windowSeconds}, not "${raw}"`,
    );
  }
  return { limit, windowSeconds };
}

/**
 * HUB_TRUST_PROXY, for a hub behind reverse proxies: how many there are, or their addresses and
 * subnets (comma-separated; also loopback, linklocal, uniquelocal). Trusting every address is
 * refused: any client could then pick the address it is throttled as.
 */
function trustProxy(raw: string | undefined): number | string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = raw.trim();
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops >= 1 && hops <= 16) return hops;
  } else {
    const entries = value.split(',').map((entry) => entry.trim());
    const valid = (entry: string) => {
      if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
      const [address = '', bits, extra] = entry.split('/');
      const family = isIP(address);
      if (family === 0 || extra !== undefined) return false;
      return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
    };
    if (entries.every(valid)) return entries.join(',');
  }
  throw new Error(
    `HUB_TRUST_PROXY must be the number of reverse proxies in front of the hub (1 to 16) or their addresses and subnets, comma-separated (such as loopback or 10.0.0.0/8), not "${raw}"`,
  );
}

/** Retention passes: every 10 minutes (each deletes in batches until nothing is left past its time). */
const DEFAULT_RETAIN_EVERY_MS = 600_000;
/** Long enough for a load balancer checking /readyz every second or two to see it fail twice. */
const DEFAULT_DRAIN_SECONDS = 5;

/**
 * A secret kept in the data directory (mode 0600), made on first use. `created` tells the
 * caller whether this start made it (the admin token is printed only then).
 */
export async function dataDirSecret(
  dataDir: string,
  name: string,
  make: () => string,
): Promise<{ value: string; created: boolean }> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, name);
  if (existsSync(path)) return { value: (await readFile(path, 'utf8')).trim(), created: false };
  const value = make();
  await writeFile(path, `${value}\n`, { mode: 0o600, flag: 'wx' });
  await chmod(path, 0o600);
  return { value, created: true };
}

export const makeAdminToken = () => generateToken('admin');
export const makeDatabasePassword = () => randomBytes(24).toString('base64url');
