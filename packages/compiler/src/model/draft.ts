import { joinPointer } from '../issues/issue.js';
import type { SourceText } from '../source/text.js';
import type { ParsedDocument } from '../source/yaml.js';

/** A raw value and where it came from; the value may be anything when the schema failed. */
export interface Field {
  value: unknown;
  doc: ParsedDocument;
  pointer: string;
}

export interface DraftEnvironment {
  node: Field;
  name: Field;
  daemon: Field;
  cwd: Field;
}

export interface DraftPromptPart {
  kind: 'text' | 'include';
  field: Field;
  /** For an include, the partial it resolved to (set by the include rule). */
  partial?: PartialEntry;
}

export interface DraftStep {
  node: Field;
  id: Field;
  environment: Field;
  maxRuntime: Field;
  idleTimeout: Field;
  agent: Field;
  prompt: DraftPromptPart[];
}

export interface DraftTrigger {
  node: Field;
  name: Field;
  enabled: Field;
  on: Field;
  maxRuntime: Field;
  filters: Field;
  steps: DraftStep[];
}

/** A partial file carried by the request: an A partial or a B bundle's partial. */
export interface PartialEntry {
  /** The path as given, which is also the issue's `file`. */
  path: string;
  /** Pointer to the entry in the request body (/partials/3 or /files/3). */
  pointer: string;
  content: string;
  source: SourceText;
}

/** Where an include leads: the key of the partial it names, or why it cannot lead anywhere. */
export type IncludeTarget =
  { ok: true; path: string } | { ok: false; code: 'include.outside_partials'; message: string };

/** The documents of any shape, laid out alike so that one set of rules checks them all. */
export interface Draft {
  /** Where the environments and the legacy agents are defined, whole. */
  containers: { environments: Field; agents?: Field };
  environments: DraftEnvironment[];
  /** Legacy named agents, by name. */
  agents: Map<string, Field>;
  triggers: DraftTrigger[];
  partials: PartialEntry[];
  /** What includes are relative to, for messages: .hub/partials/, or a bundle's .hub/workflows/. */
  includeDir: string;
  /** A partial entry's path as an include names it (the inverse of includeTarget), for suggestions. */
  includeOf(path: string): string;
  /** Paths of partials that exist but were not given (CompileOptions.partialNames): suggestions only. */
  partialNames: readonly string[];
  /** Turns a canonical include path into the path of the partial entry it names. */
  includeTarget(include: string): IncludeTarget;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function field(parent: Field, ...keys: (string | number)[]): Field {
  let value = parent.value;
  for (const key of keys) {
    if (typeof key === 'number') value = Array.isArray(value) ? value[key] : undefined;
    else value = isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined;
  }
  return { value, doc: parent.doc, pointer: joinPointer(parent.pointer, ...keys) };
}

export function root(doc: ParsedDocument): Field {
  return { value: doc.value, doc, pointer: '' };
}

/** The items of a list field, each as a field; nothing when it is not a list. */
export function items(list: Field): Field[] {
  return Array.isArray(list.value) ? list.value.map((_, index) => field(list, index)) : [];
}

/** The entries of a mapping field, each as [key, field]. */
export function entries(map: Field): [string, Field][] {
  return isRecord(map.value) ? Object.keys(map.value).map((key) => [key, field(map, key)]) : [];
}

export function promptParts(prompt: Field): DraftPromptPart[] {
  const parts: DraftPromptPart[] = [];
  for (const item of items(prompt)) {
    if (!isRecord(item.value)) continue;
    if (typeof item.value.text === 'string') parts.push({ kind: 'text', field: field(item, 'text') });
    if (typeof item.value.include === 'string') parts.push({ kind: 'include', field: field(item, 'include') });
  }
  return parts;
}

/** A step of a list-shaped trigger (A configuration, legacy workflow). */
export function listStep(node: Field): DraftStep {
  return {
    node,
    id: field(node, 'id'),
    environment: field(node, 'environment'),
    maxRuntime: field(node, 'max_runtime'),
    idleTimeout: field(node, 'idle_timeout'),
    agent: field(node, 'agent'),
    prompt: promptParts(field(node, 'prompt')),
  };
}

/** A trigger of list shape: A's triggers[i] or a legacy workflow document. */
export function listTrigger(node: Field): DraftTrigger {
  return {
    node,
    name: field(node, 'name'),
    enabled: field(node, 'enabled'),
    on: field(node, 'on'),
    maxRuntime: field(node, 'max_runtime'),
    filters: field(node, 'filters'),
    steps: items(field(node, 'steps')).map(listStep),
  };
}

/** The entries of a trigger's `on.schedule` that are mappings, each as a field. */
export function scheduleEntries(trigger: DraftTrigger): Field[] {
  return items(field(trigger.on, 'schedule')).filter((entry) => isRecord(entry.value));
}

/**
 * Where the trigger declares its inputs (DECISIONS.md, "Runs that no person dispatches"): under
 * manual.run.inputs, or under github.mention.inputs when manual.run declares none. Declaring them
 * in both places is trigger.inputs_declared_twice (rules/inputs-declared-once.ts).
 */
export function inputsField(trigger: DraftTrigger): Field {
  const manual = field(trigger.on, 'manual.run', 'inputs');
  const mention = field(trigger.on, 'github.mention', 'inputs');
  return manual.value === undefined && mention.value !== undefined ? mention : manual;
}
