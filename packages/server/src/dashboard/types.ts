// The dashboard's view of the hub's people: the shapes are @hub/dashboard's, which the hub implements.
import type { DashboardStore as DashboardPort } from '@hub/dashboard';
import type { CliCredentialExpiry } from '../auth/api-key.js';
import type { Dispatcher, OutputServer } from '../runs/index.js';
import type { GitHubConfig } from '../github/config.js';
import type { Logger } from '../http/logger.js';
import type { WebhookSettings } from '../webhooks/settings.js';

export type { Account, ApiKeyRow, Membership, SessionView } from '@hub/dashboard';
export type {
  DaemonList,
  DaemonQuery,
  DaemonRetirement,
  DaemonRow,
  RunCancellation,
  RunDetail,
  RunList,
} from '@hub/dashboard';
export type { AuditList } from '@hub/dashboard';
export type { PersonDispatch, PersonDispatchResult, RunRow, TriggerView } from '@hub/dashboard';
export type {
  AcceptedInvitation,
  CreatedInvitation,
  CreatedOrganization,
  InvitationLookup,
  InvitationRevocation,
  InvitationRow,
  MemberChange,
  MemberRole,
  MemberRow,
  MembersPort,
  NewAccount,
  PasswordChange,
} from '@hub/dashboard';

/** What the dashboard stores (its port, declared by @hub/dashboard), and the setup link it is reached by. */
export interface DashboardStore extends DashboardPort {
  /** A new setup token while the hub has no account (any earlier one stops working); the digest alone is stored. */
  issueSetupToken(): Promise<string | undefined>;
}

export interface DashboardStoreOptions {
  /** A session unused this long is over. Default SESSION_IDLE_MS (12 h). */
  idleMs?: number;
  /** A session is over this long after sign-in, used or not. Default SESSION_ABSOLUTE_MS (14 days). */
  absoluteMs?: number;
  /** The clock of sessions and throttling (tests pass their own). */
  now?: () => Date;
  /** A daemon is online while seen this recently: the dispatcher's offlineAfterMs. Default DEFAULT_TIMING's (30 s). */
  offlineAfterMs?: number;
  /** When CLI credentials expire (the account page's list tells the expired ones). Default DEFAULT_CLI_CREDENTIAL_EXPIRY (90 and 365 days). */
  cliCredentials?: CliCredentialExpiry;
  /** Serves an execution's output (text or live stream) to the run page; absent, the page shows what is stored only. */
  serveOutput?: OutputServer;
  /** Starts runs from the project page's Run form; absent, the form says it cannot. */
  dispatcher?: Dispatcher;
  /** The hub's GitHub App; absent, the GitHub page says how to configure it. */
  github?: GitHubConfig | undefined;
  /** Where failed calls to GitHub are logged. */
  log?: Logger;
  /** Where webhooks may go (HUB_WEBHOOK_ALLOW_PRIVATE): the Webhooks page's new endpoints are checked as the API's are. */
  webhooks?: Pick<WebhookSettings, 'allowPrivate'> | undefined;
}
