import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { generateToken } from './auth/secrets.js';
import { DEFAULT_TIMING, type DispatchTiming } from './dispatch/presence.js';
import { DEFAULT_DEVICE_LOGIN } from './routes/oauth.js';

export interface Config {
  host: string;
  port: number;
  databaseUrl: string | undefined;
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
  /** `hub login`'s device codes: at most 10 minutes of life, 5 s between polls; shorter ones are for tests. */
  deviceLogin: { lifetimeSeconds: number; intervalSeconds: number };
}

/** The environment variables of DECISIONS.md, Operating the hub. */
export function readConfig(env: NodeJS.ProcessEnv): Config {
  const host = env.HOST || '127.0.0.1';
  const port = env.PORT === undefined || env.PORT === '' ? 8080 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, not "${env.PORT}"`);
  return {
    host,
    port,
    databaseUrl: env.DATABASE_URL || undefined,
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
    deviceLogin: {
      lifetimeSeconds: seconds(env, 'HUB_DEVICE_CODE_LIFETIME_SECONDS', DEFAULT_DEVICE_LOGIN.lifetimeSeconds, 600),
      intervalSeconds: seconds(env, 'HUB_DEVICE_POLL_INTERVAL_SECONDS', DEFAULT_DEVICE_LOGIN.intervalSeconds, 60),
    },
  };
}

function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) throw new Error(`${name} must be a whole number of seconds from 1 to ${max}, not "${raw}"`);
  return value;
}

function milliseconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 86_400_000) throw new Error(`${name} must be a whole number of milliseconds, not "${raw}"`);
  return value;
}

/**
 * A secret kept in the data directory (mode 0600), made on first use. `created` tells the
 * caller whether this start made it (the admin token is printed only then).
 */
export async function dataDirSecret(dataDir: string, name: string, make: () => string): Promise<{ value: string; created: boolean }> {
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
