// The prompt `include` values of a document, read with the compiler's own YAML reading: callers
// (hub validate, hub deploy, hub lsp) send exactly the partials a document references, and need
// them before compiling. Where includes may stand is the documents' shape (DECISIONS.md, The YAML
// documents); everything else about them (paths, existence) compiling judges.
import { IssueCollector } from '../issues/collect.js';
import { resolveLimits } from '../limits/limits.js';
import { parseYaml } from '../source/yaml.js';

/** configuration: `triggers[].steps[].prompt[].include`; workflow (legacy): `steps[].prompt[].include`. */
export type IncludeShape = 'configuration' | 'workflow';

/**
 * The string `include` values of the document's prompts, in document order, without repeats.
 * A document that cannot be read (a syntax error, a limit) has none: compiling it says why.
 * Never throws.
 */
export function promptIncludes(yaml: string, shape: IncludeShape): string[] {
  if (typeof yaml !== 'string') return [];
  const parsed = parseYaml(yaml, undefined, resolveLimits(undefined), new IssueCollector());
  if (parsed === undefined) return [];
  // Aliases share collections: each list is walked once, so an alias costs nothing more.
  const seen = new Set<unknown[]>();
  const items = (value: unknown): unknown[] => {
    if (!Array.isArray(value) || seen.has(value)) return [];
    seen.add(value);
    return value;
  };
  const field = (value: unknown, key: string): unknown =>
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, key)
      ? (value as Record<string, unknown>)[key]
      : undefined;

  const steps =
    shape === 'configuration'
      ? items(field(parsed.value, 'triggers')).flatMap((trigger) => items(field(trigger, 'steps')))
      : items(field(parsed.value, 'steps'));
  const found = new Set<string>();
  for (const step of steps) {
    for (const item of items(field(step, 'prompt'))) {
      const include = field(item, 'include');
      if (typeof include === 'string') found.add(include);
    }
  }
  return [...found];
}
