import { IssueCollector } from '../issues/collect.js';
import type { CompileResult } from '../issues/issue.js';
import { partialNamesOf, resolveLimits, type CompileOptions } from '../limits/limits.js';
import { field, items, listTrigger, root, type Draft } from '../model/draft.js';
import type { CompiledConfiguration } from '../model/types.js';
import { checkPartials, intakeFiles } from '../paths/partials.js';
import { parseYaml } from '../source/yaml.js';
import { validateDocument } from '../validate/errors.js';
import { checkYamlText, failed, finishDraft, isRecord, readFileList } from './pipeline.js';

export interface ConfigurationInput {
  /** The configuration YAML (.hub/config.yml), at most maxYamlLength characters. */
  yaml: string;
  /** The partials its prompts include, paths relative to .hub/partials/. */
  partials?: { path: string; content: string }[];
}

/** Compiles a configuration (shape A). Never throws. */
export function compileConfiguration(
  input: ConfigurationInput,
  options?: CompileOptions,
): CompileResult<CompiledConfiguration> {
  const limits = resolveLimits(options);
  const issues = new IssueCollector();
  const given: unknown = input;
  if (!isRecord(given) || typeof given.yaml !== 'string') {
    issues.add('input.invalid', 'The input must be { yaml: string, partials?: { path, content }[] }.', '/yaml');
    return failed(issues, limits);
  }
  const list =
    given.partials === undefined ? { ok: true as const, files: [] } : readFileList(given.partials, '/partials');
  if (!list.ok) {
    issues.add('input.invalid', 'Each partial must be { path: string, content: string }.', list.pointer);
    return failed(issues, limits);
  }
  if (list.files.length > limits.maxPartials) {
    issues.add(
      'limit.partial_count',
      `The request carries ${list.files.length} partials; the limit is ${limits.maxPartials}.`,
      '/partials',
    );
    return failed(issues, limits);
  }
  const textOk = checkYamlText(given.yaml, '/yaml', limits, issues);
  const partials = intakeFiles(list.files, limits, issues, 'partial.duplicate');
  checkPartials(partials, limits, issues, '/partials');
  if (!textOk || issues.has((code) => code.startsWith('limit.') || code === 'text.malformed_unicode'))
    return failed(issues, limits);

  const parsed = parseYaml(given.yaml, undefined, limits, issues);
  if (parsed === undefined) return failed(issues, limits);
  validateDocument('configuration', parsed, issues);

  const top = root(parsed);
  const draft: Draft = {
    containers: { environments: field(top, 'environments') },
    environments: items(field(top, 'environments')).map((node) => ({
      node,
      name: field(node, 'name'),
      daemon: field(node, 'daemon'),
      cwd: field(node, 'cwd'),
    })),
    agents: new Map(),
    triggers: items(field(top, 'triggers')).map(listTrigger),
    partials,
    includeDir: '.hub/partials/',
    includeOf: (path) => path,
    partialNames: partialNamesOf(options),
    includeTarget: (path) => ({ ok: true, path }),
  };
  return finishDraft(draft, 'configuration', issues, limits);
}
