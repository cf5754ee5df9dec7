import type { Sql } from 'postgres';
import type { Compile } from './compile/pool.js';
import { DEFAULT_THROTTLE, Throttle, type ThrottlePolicies } from './auth/throttle.js';
import { AccountRepository } from './people/sql/accounts.js';
import { ApiKeyRepository } from './keys/sql.js';
import { DaemonRepository } from './daemons/sql.js';
import { OrganizationRepository } from './projects/sql.js';
import { RevisionRepository, TriggerRepository } from './configurations/sql.js';
import type { DatabaseHealth } from './db/health.js';
import { ThrottleRepository } from './auth/throttle-sql.js';
import type { DispatchTiming, Wakeups } from './runs/index.js';
import type { Logger } from './http/logger.js';

export interface HubOptions {
  /** {problem_base}: problem types are {problemBase}/problems/<code>. */
  problemBase: string;
  /** The bearer token of the operator API. */
  adminToken: string;
  /** Bodies above this many bytes are refused with 413. */
  maxBodyBytes: number;
  /** {base_url}, the hub's public URL: the dashboard's origin (its cross-site check, its cookie's Secure). Defaults to the problem base. */
  publicUrl?: string;
  /** Check every response against the OpenAPI document (a mismatch is a 500): for tests. */
  validateResponses?: boolean;
  /** The daemon protocol's clocks; DECISIONS.md's 30 s unless tuned (tests shorten them). */
  timing?: DispatchTiming;
  /** `hub login`'s device codes: their lifetime and poll interval (RFC 8628); 600 s and 5 s unless tuned (tests shorten them). */
  deviceLogin?: { lifetimeSeconds: number; intervalSeconds: number };
  /** Throttling's limits (HUB_THROTTLE_*); DEFAULT_THROTTLE unless tuned. */
  throttle?: ThrottlePolicies;
  /** HUB_TRUST_PROXY: Express's `trust proxy` (hops, or the proxies' addresses); unset, the socket's peer is the client. */
  trustProxy?: number | string;
}

/** Everything a route needs: the database's repositories, the compiler, the log, the options. */
export class Hub {
  readonly organizations: OrganizationRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly revisions: RevisionRepository;
  readonly triggers: TriggerRepository;
  readonly daemons: DaemonRepository;
  /** People: accounts, memberships, the setup link (the dashboard's store is dashboard/store.ts). */
  readonly accounts: AccountRepository;
  /** Failures counted in PostgreSQL (with `authSql`), across instances. */
  readonly throttle: Throttle;

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
    this.organizations = new OrganizationRepository(sql);
    this.apiKeys = new ApiKeyRepository(sql);
    this.revisions = new RevisionRepository(sql);
    this.triggers = new TriggerRepository(sql);
    this.daemons = new DaemonRepository(sql);
    this.accounts = new AccountRepository(sql);
    this.throttle = new Throttle(new ThrottleRepository(this.authSql), options.throttle ?? DEFAULT_THROTTLE);
  }
}
