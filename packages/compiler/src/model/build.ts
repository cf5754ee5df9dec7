import { locate } from '../source/locate.js';
import {
  entries,
  field,
  isRecord,
  scheduleEntries,
  type Draft,
  type DraftStep,
  type DraftTrigger,
  type Field,
} from './draft.js';
import { parseDuration } from './duration.js';
import type {
  CompiledAgent,
  CompiledConfiguration,
  CompiledEvent,
  CompiledScheduleEntry,
  CompiledStep,
  CompiledTrigger,
  DeclaredInput,
  SourceRef,
} from './types.js';

/** Builds the model from a draft that passed the schema and every rule. */
export function buildModel(draft: Draft, shape: CompiledConfiguration['shape']): CompiledConfiguration {
  return {
    shape,
    environments: draft.environments.map((environment) => ({
      name: environment.name.value as string,
      kind: 'daemon',
      daemon: environment.daemon.value as string,
      cwd: environment.cwd.value as string,
      daemonSource: sourceRef(environment.daemon),
    })),
    triggers: draft.triggers.map((trigger) => buildTrigger(draft, trigger)),
  };
}

function buildTrigger(draft: Draft, trigger: DraftTrigger): CompiledTrigger {
  const maxRuntimeMs = parseDuration(trigger.maxRuntime.value) as number;
  const on = isRecord(trigger.on.value) ? trigger.on.value : {};
  const events: CompiledEvent[] = [];
  if (Object.hasOwn(on, 'manual.run'))
    events.push({ kind: 'manual.run', inputs: readInputs(field(trigger.on, 'manual.run', 'inputs')) });
  if (Object.hasOwn(on, 'schedule'))
    events.push({ kind: 'schedule', entries: scheduleEntries(trigger).map(scheduleEntry) });
  if (Object.hasOwn(on, 'github.mention'))
    events.push({ kind: 'github.mention', inputs: readInputs(field(trigger.on, 'github.mention', 'inputs')) });
  if (Object.hasOwn(on, 'github.label'))
    events.push({ kind: 'github.label', name: field(trigger.on, 'github.label', 'name').value as string });
  const users = field(trigger.filters, 'from_users').value;
  return {
    name: trigger.name.value as string,
    enabled: trigger.enabled.value !== false,
    events,
    maxRuntimeMs,
    allowlist: Array.isArray(users) ? (users as string[]) : [],
    steps: trigger.steps.map((step) => buildStep(draft, step, maxRuntimeMs)),
    source: sourceRef(trigger.name),
  };
}

function scheduleEntry(entry: Field): CompiledScheduleEntry {
  const { cron, timezone, input } = entry.value as { cron: string; timezone?: string; input?: string };
  return { cron, timezone: timezone ?? 'UTC', input: input ?? '', source: sourceRef(entry) };
}

/** The inputs declared at `inputs` (a mapping of names), as the model has them. */
export function readInputs(inputs: Field): DeclaredInput[] {
  return entries(inputs).map(([name, input]) => {
    const value = isRecord(input.value) ? input.value : {};
    const declared: DeclaredInput = { name, required: value.required === true };
    if (typeof value.description === 'string') declared.description = value.description;
    if (value.default !== undefined) declared.default = String(value.default);
    if (Array.isArray(value.enum)) declared.enum = value.enum.map(String);
    return declared;
  });
}

function buildStep(draft: Draft, step: DraftStep, triggerMaxMs: number): CompiledStep {
  const idle = parseDuration(step.idleTimeout.value);
  return {
    id: step.id.value as string,
    environment: step.environment.value as string,
    maxRuntimeMs: parseDuration(step.maxRuntime.value) ?? triggerMaxMs,
    idleTimeoutMs: idle ?? null,
    agent: buildAgent(draft, step.agent),
    prompt: step.prompt
      .map((part) => (part.kind === 'text' ? (part.field.value as string) : (part.partial?.content ?? '')))
      .map((text) => text.replace(/(?:\r?\n|\r)+$/, ''))
      .join('\n\n'),
  };
}

function buildAgent(draft: Draft, agent: Field): CompiledAgent {
  const name = typeof agent.value === 'string' ? agent.value : undefined;
  const definition = name === undefined ? agent : (draft.agents.get(name) as Field);
  const out: CompiledAgent = {
    provider: field(definition, 'provider').value as string,
    sources: { provider: sourceRef(field(definition, 'provider')) },
  };
  if (name !== undefined) out.name = name;
  for (const key of ['mode', 'model'] as const) {
    const value = field(definition, key);
    if (typeof value.value !== 'string') continue;
    out[key] = value.value;
    out.sources[key] = sourceRef(value);
  }
  return out;
}

export function sourceRef(at: Field): SourceRef {
  const { offset } = locate(at.doc, at.pointer);
  const { line, column } = at.doc.source.position(offset ?? 0);
  const ref: SourceRef = { pointer: at.pointer, line, column };
  if (at.doc.file !== undefined) ref.file = at.doc.file;
  return ref;
}
