import type { Assignment as WireAssignment } from '@hub/schemas';
import type { CompiledEnvironment, CompiledTrigger, Issue } from '@hub/compiler';
import type { CliCredentialExpiry } from '../../auth/api-key.js';
import type { Db } from '../../db/connect.js';
import type { DispatchHints } from './hints.js';

/** One step as the run will execute it: its daemon by name, the prompt rendered. */
export interface PlannedStep {
  id: string;
  daemon: string;
  cwd: string;
  agent: { provider: string; mode?: string; model?: string };
  prompt: string;
  maxRuntimeMs: number;
  idleTimeoutMs: number | null;
}

/** What a daemon receives for one execution: the document's Assignment. */
export type Assignment = WireAssignment;

/** The identifiers a dispatch answers with, in either shape; a replay answers the same. */
export interface Dispatched {
  deliveryKey: string;
  triggerRunId: string;
  receiptId: string;
  triggerId: string;
  triggerName: string;
  executionId: string;
  daemonId: string;
  agentId: string;
}

/** A run a dispatch starts, planned: its identifiers, request and first assignment. */
export interface NewRun {
  triggerRunId: string;
  executionId: string;
  organizationId: string;
  deliveryKey: string;
  requestDigest: Buffer;
  actor: string;
  inputs: Record<string, string>;
  plan: PlannedStep[];
  /** The first step's, for the first execution. */
  assignment: Assignment;
  /** What started the run (DECISIONS.md, Runs that no person dispatches); `manual` when absent. */
  source?: RunSource;
  /** For a run no request started: the event that did (a schedule's tick). */
  event?: Record<string, string>;
}

export type RunSource = 'manual' | 'schedule' | 'github';

/** Where a dispatch found its trigger. */
export type FoundTrigger = {
  projectId: string;
  trigger: CompiledTrigger;
  environments: CompiledEnvironment[];
} & (
  | { source: 'configuration'; revisionId: string; configuredTriggerId?: string }
  /** `configurationRevisionId`: the project's active configuration then (without the trigger), or null. */
  | { source: 'trigger'; revisionId: string; triggerId: string; configurationRevisionId: string | null }
);

/**
 * Where a dispatch of one project and trigger name last found its trigger, and the trigger as
 * compiled. A revision is never changed once stored, so the model is exact for as long as the
 * revision ids here are still the active ones; `dispatchHinted` checks that they are (runs/dispatch/hints.ts keeps them).
 */
export interface TriggerHint {
  projectId: string;
  /** The project's active configuration revision then; null when it had none. */
  configurationRevisionId: string | null;
  /** For an organization trigger: its active revision then (the configuration lacked the name). */
  triggerRevisionId: string | null;
  /** The run's triggerId (the configured trigger's or the organization trigger's). */
  triggerId: string;
  trigger: CompiledTrigger;
  environments: CompiledEnvironment[];
}

/** An earlier dispatch with the same delivery key: its identifiers, and its request's digest. */
export interface Delivery {
  requestDigest: Buffer;
  dispatched: Dispatched;
}

/**
 * Why a dispatch starts nothing, in the order the API gives them (DECISIONS.md, Dispatch); the
 * route answers each with its problem.
 */
export type DispatchRefusal =
  | { reason: 'delivery_key_reused' }
  | { reason: 'project_not_found' }
  /** `didYouMean`: the compiler's "; did you mean …?", or ''. */
  | { reason: 'trigger_not_found'; didYouMean: string }
  | { reason: 'trigger_disabled'; trigger: string }
  | { reason: 'version_not_current'; expectedVersionId: string; activeVersionId: string }
  /** `allowlist`: the trigger's filters.from_users, which shape B's problem names. */
  | { reason: 'actor_forbidden'; allowlist: string[] }
  | { reason: 'input_invalid'; issues: Issue[] }
  | { reason: 'no_steps'; trigger: string }
  /** Revoked since the key check: ahead of every other refusal of the write. */
  | { reason: 'key_revoked' }
  | { reason: 'daemon_offline'; daemon: string; enrolled: boolean };

/** What a dispatch works with: the connection, the clocks, this instance's hints, and a daemon's wake-up. */
export interface Dispatcher {
  sql: Db;
  timing: { offlineAfterMs: number };
  /** When CLI credentials expire: the one-statement path checks the key itself. */
  cliCredentials: CliCredentialExpiry;
  hints: DispatchHints;
  /** Wakes the daemon's long-polls; called once its assignment has committed (runs/dispatch/notices.ts). */
  wake: (daemonId: string) => void;
}
