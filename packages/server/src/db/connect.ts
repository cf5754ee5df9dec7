// The one place the hub opens PostgreSQL clients (postgres.js), so that every client has the same
// bounds: how long a connection may take to open, how long a statement may run, how long a
// transaction may sit idle, and how soon a lost connection is tried again.
import postgres, { type Sql, type TransactionSql } from 'postgres';

/** What a repository runs its statements on: the pool, or a transaction's connection. */
export type Db = Sql | TransactionSql;

/** The database bounds (docs/decisions.md, Database faults); configurable through HUB_DB_* (config.ts). */
export interface DatabaseTimeouts {
  /** Opening a connection (TCP, TLS, authentication, startup) gives up after this long. */
  connectTimeoutMs: number;
  /** PostgreSQL cancels a statement running longer than this (`statement_timeout`, SQLSTATE 57014). */
  statementTimeoutMs: number;
  /** PostgreSQL ends a session idle inside a transaction this long (`idle_in_transaction_session_timeout`, 25P03). */
  idleInTransactionTimeoutMs: number;
  /**
   * HUB_DATABASE_POOLING=transaction: DATABASE_URL is a pooler in transaction mode (PgBouncer),
   * which keeps no session between transactions: no named prepared statements, and no startup
   * parameters beyond application_name (the two timeouts are then the role's, see the README).
   */
  transactionPooling?: boolean;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  connectTimeoutMs: 2_000,
  // Far above any statement of the hub (they take milliseconds; long-polls and output streams
  // wait in Node, between statements, never inside one), and above the idle-in-transaction bound,
  // so a statement queued on a lock outlasts a stalled holder's session.
  statementTimeoutMs: 10_000,
  // The hub's transactions run their statements back to back: no compile, hash or network call
  // happens inside one (docs/decisions.md).
  idleInTransactionTimeoutMs: 5_000,
};

/** The longest wait before a lost connection is tried again; postgres.js's own grows to 20 s. */
export const MAX_RECONNECT_DELAY_MS = 250;

/**
 * Seconds before the next connection attempt after `retries` failed ones: 25 ms doubling up to
 * MAX_RECONNECT_DELAY_MS, each jittered down by up to half, so the first request after PostgreSQL
 * is back connects at once and instances do not retry in step.
 */
export function reconnectDelay(retries: number): number {
  const ms = Math.min(25 * 2 ** Math.min(retries, 10), MAX_RECONNECT_DELAY_MS);
  return (ms * (0.5 + Math.random() / 2)) / 1000;
}

export interface ClientOptions {
  /** Connections at most. */
  max: number;
  /** `application_name`, as pg_stat_activity shows it. */
  name: string;
  timeouts: DatabaseTimeouts;
  /** More connection parameters (`synchronous_commit`, …). */
  parameters?: Record<string, string>;
  /** Called whenever one of the client's connections closes (or fails to open). */
  onclose?: () => void;
  /** Overrides the reconnect delay (seconds, from the count of failed attempts). */
  backoff?: (retries: number) => number;
  /** Keep connections open however long they idle or live (a sentinel connection). */
  keepOpen?: boolean;
}

/** A postgres.js client with the hub's bounds. */
export function connectDatabase(url: string, options: ClientOptions): Sql {
  const { timeouts } = options;
  return postgres(url, {
    max: options.max,
    onnotice: () => {},
    connect_timeout: timeouts.connectTimeoutMs / 1000,
    backoff: options.backoff ?? reconnectDelay,
    ...(options.keepOpen === true ? { idle_timeout: 0, max_lifetime: null } : {}),
    ...(options.onclose === undefined ? {} : { onclose: options.onclose }),
    ...(timeouts.transactionPooling === true
      ? { prepare: false, connection: { application_name: options.name } }
      : {
          connection: {
            application_name: options.name,
            statement_timeout: timeouts.statementTimeoutMs,
            idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs,
            ...options.parameters,
          },
        }),
  });
}
