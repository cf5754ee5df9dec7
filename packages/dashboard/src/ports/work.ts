// The storage the project page's work needs: what the active configuration defines, the project's
// recent runs, and a run started by a person (a part of the dashboard's port).
import type { RunRow } from './runs.js';

export interface TriggerInput {
  name: string;
  description: string | undefined;
  required: boolean;
  default: string | undefined;
  /** The only values it may take; undefined when any is allowed. */
  enum: string[] | undefined;
}

export interface TriggerStep {
  id: string;
  environment: string;
  /** The working directory on the daemon's machine. */
  cwd: string;
  daemon: string;
  /** Whether the daemon is enrolled, not retired, and was seen recently. */
  online: boolean;
  provider: string;
  mode: string | undefined;
  model: string | undefined;
}

/** An entry of a trigger's schedule, with its next fire times. */
export interface ScheduleView {
  cron: string;
  /** An IANA zone; UTC when the entry names none. */
  timezone: string;
  /** The input text each tick runs with; '' for none. */
  input: string;
  /** Its next three fire times from now (fewer for an expression that rarely or never matches). */
  next: Date[];
}

/** A trigger of the project's active configuration, as people read it. */
export interface TriggerView {
  name: string;
  enabled: boolean;
  /** Its `on` kinds, such as manual.run. */
  kinds: string[];
  /** The inputs of its manual.run event; empty without one. */
  inputs: TriggerInput[];
  /** filters.from_users: who may start it. */
  allowlist: string[];
  /** The entries of its schedule event; empty without one. */
  schedules: ScheduleView[];
  maxRuntimeMs: number;
  steps: TriggerStep[];
}

/** A run asked for in the dashboard: the form's fields, the input text built from them. */
export interface PersonDispatch {
  trigger: string;
  actor: string;
  /** `key=value` tokens of the inputs, then the prompt, as a dispatch's `input` is. */
  input: string;
  /** Made when the form was sent to the browser: the same form sent twice starts one run. */
  deliveryKey: string;
}

export type PersonDispatchResult =
  | { ok: true; runId: string }
  /** Why nothing started, in a sentence for the form (`field`: the input at fault, if one is). */
  | { ok: false; status: number; message: string; field?: string | undefined };

export interface WorkPort {
  /** The triggers of the project's active configuration; empty without one. */
  projectTriggers(organizationId: string, slug: string): Promise<TriggerView[]>;
  /** The project's most recent runs, newest first. */
  projectRuns(organizationId: string, slug: string, limit: number): Promise<RunRow[]>;
  /** Starts a run as the API's dispatch does (allowlist, inputs, daemon online, delivery key), recorded as the person's. */
  dispatchRun(
    accountId: string,
    organizationId: string,
    slug: string,
    dispatch: PersonDispatch,
  ): Promise<PersonDispatchResult>;
}
