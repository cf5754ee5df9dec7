// The daemon's configuration (daemon.yml), from its text: which command runs each agent provider,
// and how many executions run at once. Every mistake is reported at once, as data with its line
// and key; finding the file and showing the mistakes are the CLI's.
import { closest, type WireSchema } from '@hub/schemas';
import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';

export interface ProviderConfig {
  /** argv; `{mode}` and `{model}` in an argument are the assignment's (see `commandLine`). */
  command: string[];
  modes?: string[];
  models?: string[];
  env: Record<string, string>;
}

export interface DaemonConfig {
  concurrency: number;
  /** A Map: provider names come from the hub, and must never find `constructor` on a plain object. */
  providers: Map<string, ProviderConfig>;
}

/** What the hub is told this daemon can run (DECISIONS.md, Daemons). */
export type Runtime = WireSchema<'DaemonRuntime'>;

export interface ConfigIssue {
  /** Keys from the top of the document: `['providers', 'claude', 'command']`. */
  path: (string | number)[];
  message: string;
  /** 1-based, where the document has the value (an unknown key: the key), or its nearest parent. */
  line?: number;
  column?: number;
}

/** The hub's patterns for provider names and for the modes and models it accepts. */
const PROVIDER = /^[a-z0-9][a-z0-9._-]{0,62}$/;
const MAX_LABEL = 200;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PLACEHOLDER = /\{(?:mode|model)\}/;

export function parseDaemonConfig(
  text: string,
): { config: DaemonConfig; issues: [] } | { config?: undefined; issues: ConfigIssue[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    return {
      issues: doc.errors.map((error) => ({
        path: [],
        message: error.message,
        ...lineColumn(lineCounter.linePos(error.pos[0])),
      })),
    };
  }
  const issues: ConfigIssue[] = [];
  const config = readConfig(doc.toJS() as unknown, (path, message, at = 'value') =>
    issues.push({ path, message, ...position(doc, lineCounter, path, at) }),
  );
  return issues.length === 0 ? { config, issues: [] } : { issues };
}

export function runtimesOf(config: DaemonConfig): Runtime[] {
  return [...config.providers].map(([provider, { modes, models }]) => ({
    provider,
    ...(modes === undefined ? {} : { modes }),
    ...(models === undefined ? {} : { models }),
  }));
}

/** `at: 'key'` positions the issue at the key of `path` rather than at its value. */
type Report = (path: (string | number)[], message: string, at?: 'key' | 'value') => void;

function readConfig(value: unknown, report: Report): DaemonConfig {
  const config: DaemonConfig = { concurrency: 1, providers: new Map() };
  if (!isMapping(value)) {
    report(
      [],
      value === null || value === undefined
        ? 'the file is empty; it needs at least `providers`'
        : 'must be a mapping with `providers` (and optionally `concurrency`)',
    );
    return config;
  }
  unknownKeys(value, ['concurrency', 'providers'], [], report);
  if (value.concurrency !== undefined) {
    if (Number.isInteger(value.concurrency) && (value.concurrency as number) >= 1)
      config.concurrency = value.concurrency as number;
    else report(['concurrency'], 'must be a whole number, 1 or more');
  }
  const providers = value.providers;
  if (!isMapping(providers) || Object.keys(providers).length === 0) {
    report(
      providers === undefined ? [] : ['providers'],
      'needs `providers`: at least one agent provider and its command',
    );
    return config;
  }
  for (const [name, provider] of Object.entries(providers)) {
    if (!PROVIDER.test(name))
      report(
        ['providers', name],
        'a provider name is 1 to 63 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit',
      );
    const read = readProvider(provider, ['providers', name], report);
    if (read !== undefined) config.providers.set(name, read);
  }
  return config;
}

function readProvider(value: unknown, at: string[], report: Report): ProviderConfig | undefined {
  if (!isMapping(value)) {
    report(at, 'must be a mapping with `command` (and optionally `modes`, `models`, `env`)');
    return undefined;
  }
  unknownKeys(value, ['command', 'modes', 'models', 'env'], at, report);
  const { command } = value;
  if (command === undefined) {
    report([...at, 'command'], 'is missing: the program and its arguments, as a list: [claude, -p]');
  } else if (
    !Array.isArray(command) ||
    command.length === 0 ||
    !command.every((arg) => typeof arg === 'string' && arg !== '')
  ) {
    report([...at, 'command'], 'must be a list of non-empty strings, the program first: [claude, -p]');
  } else if (PLACEHOLDER.test(command[0] as string)) {
    report([...at, 'command', 0], 'the program cannot be a {mode} or {model} placeholder');
  }
  const provider: ProviderConfig = { command: command as string[], env: readEnv(value.env, [...at, 'env'], report) };
  for (const key of ['modes', 'models'] as const) {
    const list = value[key];
    if (list === undefined) continue;
    if (
      Array.isArray(list) &&
      list.every((item) => typeof item === 'string' && item !== '' && item.length <= MAX_LABEL)
    )
      provider[key] = list as string[];
    else report([...at, key], `must be a list of non-empty strings of at most ${MAX_LABEL} characters`);
  }
  return provider;
}

/** Numbers and booleans are taken as their text: `DEBUG: 1` means what it says. */
function readEnv(value: unknown, at: (string | number)[], report: Report): Record<string, string> {
  const env: Record<string, string> = {};
  if (value === undefined) return env;
  if (!isMapping(value)) {
    report(at, 'must be a mapping of variable names to values');
    return env;
  }
  for (const [name, text] of Object.entries(value)) {
    if (!ENV_NAME.test(name))
      report([...at, name], 'a variable name is letters, digits and "_", not starting with a digit');
    else if (typeof text === 'string' || typeof text === 'number' || typeof text === 'boolean')
      env[name] = String(text);
    else report([...at, name], 'must be a string, a number or a boolean');
  }
  return env;
}

/** A key not in `allowed`, at the key (the mistake is its spelling), with the likely one. */
function unknownKeys(value: Record<string, unknown>, allowed: string[], at: (string | number)[], report: Report): void {
  for (const key of Object.keys(value)) {
    if (allowed.includes(key)) continue;
    const likely = closest(key, allowed);
    report(
      [...at, key],
      `unknown key${likely === undefined ? '' : `; did you mean \`${likely}\`?`} (allowed: ${allowed.join(', ')})`,
      'key',
    );
  }
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The position of the node at `path` (or of its key), or of its nearest parent that the document has. */
function position(
  doc: Document,
  lineCounter: LineCounter,
  path: (string | number)[],
  at: 'key' | 'value',
): { line?: number; column?: number } {
  if (at === 'key' && path.length > 0) {
    const parent = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
    const name = path[path.length - 1];
    const pair = isMap(parent)
      ? parent.items.find((item) => isScalar(item.key) && String(item.key.value) === String(name))
      : undefined;
    const range = isScalar(pair?.key) ? pair.key.range : undefined;
    if (range) return lineColumn(lineCounter.linePos(range[0]));
  }
  for (let length = path.length; length >= 0; length--) {
    const node = length === 0 ? doc.contents : doc.getIn(path.slice(0, length), true);
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
    if (range !== undefined) return lineColumn(lineCounter.linePos(range[0]));
  }
  return {};
}

function lineColumn(pos: { line: number; col: number } | undefined): { line?: number; column?: number } {
  return pos === undefined ? {} : { line: pos.line, column: pos.col };
}
