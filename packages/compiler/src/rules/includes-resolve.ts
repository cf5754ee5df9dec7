import { closest } from '@hub/schemas';
import { hint } from '../issues/suggest.js';
import type { PartialEntry } from '../model/draft.js';
import { checkPath, foldPath } from '../paths/check-path.js';
import { reportAt, type RuleContext } from './context.js';

function everythingRead({ draft, issues }: RuleContext): boolean {
  const docs = new Set([
    ...draft.triggers.map((trigger) => trigger.node.doc),
    ...draft.environments.map((environment) => environment.node.doc),
  ]);
  for (const doc of docs) if (doc.rejected.size > 0 || doc.flagged.size > 0) return false;
  return !issues.has(
    (code) => code.startsWith('path.') || code.startsWith('bundle.') || code === 'include.outside_partials',
  );
}

/**
 * Every prompt include names exactly one partial the input carries, and every partial is
 * included somewhere. Sets each include's `partial` for the rules and the model after it.
 */
export function includesResolve(context: RuleContext): void {
  const { draft, issues, limits } = context;
  const byPath = new Map<string, PartialEntry>();
  const byFolded = new Map<string, PartialEntry>();
  for (const entry of draft.partials) {
    if (!byPath.has(entry.path)) byPath.set(entry.path, entry);
    if (!byFolded.has(foldPath(entry.path))) byFolded.set(foldPath(entry.path), entry);
  }
  const used = new Set<PartialEntry>();
  for (const trigger of draft.triggers) {
    for (const step of trigger.steps) {
      for (const part of step.prompt) {
        if (part.kind !== 'include' || typeof part.field.value !== 'string') continue;
        const checked = checkPath(part.field.value, limits);
        if (!checked.ok) {
          reportAt(issues, checked.code, checked.message, part.field);
          continue;
        }
        const target = draft.includeTarget(checked.path);
        if (!target.ok) {
          reportAt(issues, target.code, target.message, part.field);
          continue;
        }
        const entry = byPath.get(target.path);
        if (entry !== undefined) {
          part.partial = entry;
          used.add(entry);
          continue;
        }
        const folded = byFolded.get(foldPath(target.path));
        // Worded for the hub (the partials are a request's) and offline (a repository's) alike, and
        // the suggestion as the include would write it (a quick fix puts it in place of the include).
        const message = () => {
          const known = [...byPath.keys(), ...draft.partialNames].map((path) => draft.includeOf(path));
          const suggestion = folded !== undefined ? draft.includeOf(folded.path) : closest(checked.path, known);
          return {
            message: `No partial "${checked.path}" in ${draft.includeDir}${hint(suggestion) || '.'}`,
            suggestion,
          };
        };
        reportAt(issues, 'partial.missing', message, part.field);
      }
    }
  }
  // "Not included anywhere" is only certain when every document was read whole: a misspelled
  // include key or a rejected include path may be the include that names it.
  if (!everythingRead(context)) return;
  for (const entry of byPath.values()) {
    if (used.has(entry)) continue;
    issues.add(
      'partial.extra',
      `The partial "${entry.path}" is not included by any prompt; remove it from the request.`,
      entry.pointer,
      {
        file: entry.path,
      },
    );
  }
}
