/** Where a model value came from, for issues found after compiling (resources, dispatch). */
export interface SourceRef {
  file?: string;
  pointer: string;
  line: number;
  column: number;
}

export interface CompiledEnvironment {
  name: string;
  kind: 'daemon';
  daemon: string;
  cwd: string;
  /** The `daemon` value. */
  daemonSource: SourceRef;
}

export interface DeclaredInput {
  name: string;
  description?: string;
  required: boolean;
  /** Numbers and booleans are taken as their text. */
  default?: string;
  enum?: string[];
}

/** One entry of a `schedule` event: checked when compiled (schedule/cron.ts, rules/schedule-*.ts). */
export interface CompiledScheduleEntry {
  /** The five-field expression or nickname, as written. */
  cron: string;
  /** An IANA zone name; `UTC` when the entry names none. */
  timezone: string;
  /** The input text each tick dispatches with (parsed like a dispatch's `input`); '' when none. */
  input: string;
  /** The entry (its mapping in the document). */
  source: SourceRef;
}

/**
 * One kind of `on`. A trigger's inputs are declared once, under manual.run or under github.mention:
 * the other kinds' `inputs` is empty then; `declaredInputs(trigger)` reads them from either.
 */
export type CompiledEvent =
  | { kind: 'manual.run'; inputs: DeclaredInput[] }
  | { kind: 'schedule'; entries: CompiledScheduleEntry[] }
  /** A mention of the hub's GitHub App with the trigger's name; `inputs` as declared under it. */
  | { kind: 'github.mention'; inputs: DeclaredInput[] }
  /** The label `name` added to an issue or pull request. */
  | { kind: 'github.label'; name: string };

export interface CompiledAgent {
  provider: string;
  mode?: string;
  model?: string;
  /** The legacy agents entry the step named, if it named one. */
  name?: string;
  sources: { provider: SourceRef; mode?: SourceRef; model?: SourceRef };
}

export interface CompiledStep {
  id: string;
  /** The name of one of the configuration's environments. */
  environment: string;
  maxRuntimeMs: number;
  idleTimeoutMs: number | null;
  agent: CompiledAgent;
  /** The prompt template: items in order, includes replaced by their partials' text. */
  prompt: string;
}

export interface CompiledTrigger {
  name: string;
  enabled: boolean;
  events: CompiledEvent[];
  maxRuntimeMs: number;
  /** filters.from_users: who may dispatch the trigger. */
  allowlist: string[];
  steps: CompiledStep[];
  source: SourceRef;
}

/** The one model every document shape compiles to. */
export interface CompiledConfiguration {
  shape: 'configuration' | 'trigger' | 'bundle';
  environments: CompiledEnvironment[];
  triggers: CompiledTrigger[];
}
