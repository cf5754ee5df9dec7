import type { Sql } from 'postgres';
import type { CliCredentialExpiry } from '../auth/api-key.js';
import type { Throttle } from '../auth/throttle.js';
import type { DatabaseHealth } from '../db/health.js';
import type { Logger } from './logger.js';

/** The options the platform (mounting, authentication, problems, the document) reads of a hub's. */
export interface PlatformOptions {
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
  /** HUB_TRUST_PROXY: Express's `trust proxy` (hops, or the proxies' addresses); unset, the socket's peer is the client. */
  trustProxy?: number | string;
  /** HUB_CLI_CREDENTIAL_IDLE_DAYS, HUB_CLI_CREDENTIAL_LIFETIME_DAYS: when CLI credentials expire; 90 and 365 days unless tuned. */
  cliCredentials?: CliCredentialExpiry;
}

/**
 * What the platform folders need of a hub: its connections, log, throttling and options. The Hub
 * (hub.ts) is one; platform code takes this, so that it never reaches into a feature.
 */
export interface Platform {
  readonly sql: Sql;
  /** Connections for key checks (see Hub.authSql). */
  readonly authSql: Sql;
  readonly log: Logger;
  readonly throttle: Throttle;
  readonly health?: DatabaseHealth | undefined;
  readonly options: PlatformOptions;
  /** True once the instance was asked to stop and drains (HUB_DRAIN_SECONDS): /readyz answers 503. */
  readonly draining?: boolean;
}
