import type { Sql } from 'postgres';
import type { Compile } from './compile/pool.js';
import { DEFAULT_THROTTLE, Throttle, type ThrottlePolicies } from './auth/throttle.js';
import type { DatabaseHealth } from './db/health.js';
import { ThrottleRepository } from './auth/throttle-sql.js';
import type { DispatchTiming, Wakeups } from './runs/index.js';
import type { Logger } from './http/logger.js';
import type { PlatformOptions } from './http/platform.js';
import type { GitHubConfig } from './github/config.js';
import type { StoredDelivery } from './github/deliveries/sql.js';
import type { WebhookSettings } from './webhooks/settings.js';

export interface HubOptions extends PlatformOptions {
  /** The daemon protocol's clocks; DECISIONS.md's 30 s unless tuned (tests shorten them). */
  timing?: DispatchTiming;
  /** `hub login`'s device codes: their lifetime and poll interval (RFC 8628); 600 s and 5 s unless tuned (tests shorten them). */
  deviceLogin?: { lifetimeSeconds: number; intervalSeconds: number };
  /** How often an output stream checks its credential again (DEFAULT_STREAM_RECHECK_MS, 5 s, unless tuned; tests shorten it). */
  streamRecheckMs?: number;
  /** Throttling's limits (HUB_THROTTLE_*); DEFAULT_THROTTLE unless tuned. */
  throttle?: ThrottlePolicies;
  /** The hub's GitHub App (HUB_GITHUB_*); absent, GitHub is off: the webhook answers 404 and no GitHub trigger fires. */
  github?: GitHubConfig;
  /** HUB_METRICS_TOKEN: GET /metrics requires it as a bearer; unset, loopback clients only. */
  metricsToken?: string;
  /** HUB_WEBHOOK_*: where webhooks may go, and their schedule; DEFAULT_WEBHOOKS unless tuned. */
  webhooks?: WebhookSettings;
  /** HUB_METRICS=off: false; GET /metrics answers 404 and requests are not counted. On unless false. */
  metrics?: boolean;
}

/** What a hub instance holds: its connections, the compiler, the log, the options and its wake-ups (repositories are built where used, from the connection at hand). */
export class Hub {
  /** Failures counted in PostgreSQL (with `authSql`), across instances. */
  readonly throttle: Throttle;

  /** Set by main.ts when the instance drains before it stops (HUB_DRAIN_SECONDS): /readyz answers 503. */
  draining = false;

  /** This instance's GitHub worker, once started (main.ts): the webhook hands it what it received. */
  github?: { received(delivery: StoredDelivery): void };

  /**
   * Connections for authenticating keys, whose lastUsedAt write commits without waiting for the
   * disk (synchronous_commit off): a crash may lose the last second of lastUsedAt, never a
   * revision or a revocation, which are written through `sql`.
   */
  readonly authSql: Sql;

  constructor(
    readonly sql: Sql,
    readonly compile: Compile,
    readonly log: Logger,
    readonly options: HubOptions,
    authSql?: Sql,
    /** Wakes long-polls when an assignment is created (LISTEN/NOTIFY); absent, polls wait out their time. */
    readonly wakeups?: Wakeups,
    /** Wakes output streams when their execution has new output or ends; absent, streams look every few seconds. */
    readonly outputWakeups?: Wakeups,
    /** This instance's view of its database (db/health.ts): 503 at once while it is down; absent, every request tries it. */
    readonly health?: DatabaseHealth,
  ) {
    this.authSql = authSql ?? sql;
    this.throttle = new Throttle(new ThrottleRepository(this.authSql), options.throttle ?? DEFAULT_THROTTLE);
  }
}
