import { IssueCollector } from '../issues/collect.js';
import type { CompileResult } from '../issues/issue.js';
import { resolveLimits, type CompileOptions } from '../limits/limits.js';
import { field, root, type Draft, type DraftStep, type Field } from '../model/draft.js';
import type { CompiledConfiguration } from '../model/types.js';
import { parseYaml } from '../source/yaml.js';
import { validateDocument } from '../validate/errors.js';
import { checkYamlText, failed, finishDraft, isRecord } from './pipeline.js';

export interface TriggerInput {
  /** One trigger document (.hub/triggers/<name>.yml). */
  yaml: string;
}

/** The environment and step a trigger document implies: the names its model uses. */
export const TRIGGER_ENVIRONMENT = 'default';
export const TRIGGER_STEP = 'run';

/** Compiles one B trigger document into the shared model: one environment, one step. Never throws. */
export function compileTrigger(input: TriggerInput, options?: CompileOptions): CompileResult<CompiledConfiguration> {
  const limits = resolveLimits(options);
  const issues = new IssueCollector();
  const given: unknown = input;
  if (!isRecord(given) || typeof given.yaml !== 'string') {
    issues.add('input.invalid', 'The input must be { yaml: string }.', '/yaml');
    return failed(issues, limits);
  }
  if (!checkYamlText(given.yaml, '/yaml', limits, issues)) return failed(issues, limits);
  const parsed = parseYaml(given.yaml, undefined, limits, issues);
  if (parsed === undefined) return failed(issues, limits);
  validateDocument('trigger', parsed, issues);

  const top = root(parsed);
  const run = field(top, 'run');
  const target = field(run, 'target');
  const agent = field(run, 'agent');
  const named = (value: string, at: Field): Field => ({ value, doc: parsed, pointer: at.pointer });
  const prompt = field(agent, 'prompt');
  const step: DraftStep = {
    node: run,
    id: named(TRIGGER_STEP, run),
    environment: named(TRIGGER_ENVIRONMENT, target),
    maxRuntime: { value: undefined, doc: parsed, pointer: field(agent, 'max_runtime').pointer },
    idleTimeout: field(agent, 'idle_timeout'),
    agent,
    prompt: typeof prompt.value === 'string' ? [{ kind: 'text', field: prompt }] : [],
  };
  const draft: Draft = {
    containers: { environments: target },
    environments: [
      {
        node: target,
        name: named(TRIGGER_ENVIRONMENT, target),
        daemon: field(target, 'daemon'),
        cwd: field(target, 'cwd'),
      },
    ],
    agents: new Map(),
    triggers: [
      {
        node: top,
        name: field(top, 'name'),
        enabled: field(top, 'enabled'),
        on: field(top, 'on'),
        maxRuntime: field(agent, 'max_runtime'),
        filters: field(top, 'filters'),
        steps: [step],
      },
    ],
    partials: [],
    includeDir: '.hub/partials/',
    includeOf: (path) => path,
    partialNames: [],
    includeTarget: (path) => ({ ok: true, path }),
  };
  return finishDraft(draft, 'trigger', issues, limits);
}
