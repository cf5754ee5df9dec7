// Whether the hub's PostgreSQL is there: which errors mean it is not, and the instance's view of it
// (up, or down since a check failed). What the API answers meanwhile is http/database-gate.ts's.
import type { Sql } from 'postgres';
import { connectDatabase, type DatabaseTimeouts } from './connect.js';

/** Where the health's changes are logged (the hub's logger, as far as this needs it). */
export interface HealthLog {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Node's codes for a connection that could not be made or was cut. */
const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/**
 * postgres.js's codes for a connection that did not open in time, closed, or was ended; and (our
 * patch) for a multi-host DATABASE_URL none of whose hosts is writable: a primary stopped, its
 * replica not promoted yet (a failover under way).
 */
const CLIENT = new Set([
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'TARGET_SESSION_ATTRS',
]);
/** SQLSTATEs of a server going away or refusing sessions: shutting down, crashed, starting, out of connection slots. */
const SERVER = new Set(['57P01', '57P02', '57P03', '53300']);
/** SQLSTATEs of the hub's own bounds: statement_timeout, idle_in_transaction_session_timeout. */
const TIMEOUT = new Set(['57014', '25P03']);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The error says the database went away or cannot be reached (worth checking whether it is down). */
export function lostDatabase(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  // Node's connect to a host name with several addresses fails with all of them.
  const errors = (error as { errors?: unknown }).errors;
  if (Array.isArray(errors) && errors.some(lostDatabase)) return true;
  const code = codeOf(error);
  if (code === undefined) return false;
  // A Unix socket whose file is gone: the server is not running.
  if (code === 'ENOENT') return (error as { syscall?: unknown }).syscall === 'connect';
  return NETWORK.has(code) || CLIENT.has(code) || SERVER.has(code) || /^08[0-9A-Z]{3}$/.test(code);
}

/** The error means the request could not be served by the database now: 503 database_unavailable. */
export function databaseUnavailable(error: unknown): boolean {
  const code = codeOf(error);
  return lostDatabase(error) || (code !== undefined && TIMEOUT.has(code));
}

/** How often a down database is checked again. */
export const PROBE_EVERY_MS = 250;

/**
 * This instance's view of its database. It starts up; a check (`select 1` on a connection of its
 * own) runs when that connection closes (PostgreSQL stopping ends every session) and when a
 * request or task reports an error that means the database went away. A failed check makes it
 * down: requests that need the database answer 503 at once (http/database-gate.ts), long-polls and streams end,
 * and a check runs every PROBE_EVERY_MS until one passes, so the first request after PostgreSQL is
 * back is served within a fraction of a second. Each change is logged once.
 */
export class DatabaseHealth {
  private isDown = false;
  private downSince = 0;
  private checking = false;
  /** What the last failed check met, for the log line. */
  private lastError = '';
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private sql: Sql;
  /** Bumped when the checking client is replaced, so the old one's closes are not mistaken for news. */
  private generation = 0;
  private readonly listeners = new Set<(down: boolean) => void>();

  constructor(
    private readonly url: string,
    private readonly timeouts: DatabaseTimeouts,
    private readonly log: HealthLog,
    private readonly probeEveryMs = PROBE_EVERY_MS,
  ) {
    this.sql = this.connect();
  }

  /** A health that has checked once (the database answered at start, or it is down). */
  static async start(
    url: string,
    timeouts: DatabaseTimeouts,
    log: HealthLog,
    probeEveryMs?: number,
  ): Promise<DatabaseHealth> {
    const health = new DatabaseHealth(url, timeouts, log, probeEveryMs);
    health.settle(await health.probe());
    return health;
  }

  get down(): boolean {
    return this.isDown;
  }

  /** Calls `listener` with `true` when the database goes down, `false` when it is back; returns the unsubscribe. */
  onChange(listener: (down: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** An error met anywhere: one that means the database went away starts a check. */
  report(error: unknown): void {
    if (lostDatabase(error)) this.check();
  }

  /** Checks now, unless a check is under way. */
  check(): void {
    if (this.closed || this.checking) return;
    this.checking = true;
    void this.probe().then((ok) => {
      this.checking = false;
      if (!this.closed) this.settle(ok);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.listeners.clear();
    await this.sql.end({ timeout: 0 });
  }

  /** One connection, kept open while the database is up: its close is the first sign of a stop. */
  private connect(): Sql {
    const generation = ++this.generation;
    return connectDatabase(this.url, {
      max: 1,
      name: 'hub-health',
      timeouts: this.timeouts,
      keepOpen: true,
      // The checks have their own pace.
      backoff: () => 0,
      onclose: () => {
        if (generation === this.generation) this.check();
      },
    });
  }

  /** `select 1`, given up after the connect timeout and a second; a client stuck that long is replaced. */
  private async probe(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>(
      (resolve) => (timer = setTimeout(() => resolve('late'), this.timeouts.connectTimeoutMs + 1_000)),
    );
    try {
      const answer = await Promise.race([this.sql`select 1`.then(() => 'ok' as const), late]);
      if (answer === 'ok') return true;
      const stuck = this.sql;
      this.sql = this.connect();
      void stuck.end({ timeout: 0 }).catch(() => undefined);
      this.lastError = 'no answer in time';
      return false;
    } catch (error) {
      this.lastError = error instanceof Error ? error.message : String(error);
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  private settle(ok: boolean): void {
    if (ok) {
      if (!this.isDown) return;
      this.isDown = false;
      this.log.info('database available again', { unavailableMs: Date.now() - this.downSince });
      this.emit(false);
      return;
    }
    if (!this.isDown) {
      this.isDown = true;
      this.downSince = Date.now();
      this.log.warn('database unavailable: requests that need it answer 503 until it is back', {
        error: this.lastError,
      });
      this.emit(true);
    }
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.check(), this.probeEveryMs);
    this.retry.unref();
  }

  private emit(down: boolean): void {
    for (const listener of this.listeners) {
      try {
        listener(down);
      } catch (error) {
        this.log.error('database health listener failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }
}
