import { didYouMean } from '../issues/suggest.js';
import type { PartialEntry } from '../model/draft.js';
import { checkPath, foldPath } from '../paths/check-path.js';
import { reportAt, type RuleContext } from './context.js';

/**
 * Every prompt include names exactly one partial the request carries, and every partial is
 * included somewhere. Sets each include's `partial` for the rules and the model after it.
 */
export function includesResolve(context: RuleContext): void {
  const { draft, issues, limits } = context;
  const byPath = new Map<string, PartialEntry>();
  for (const entry of draft.partials) if (!byPath.has(entry.path)) byPath.set(entry.path, entry);
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
        const folded = draft.partials.find((candidate) => foldPath(candidate.path) === foldPath(target.path));
        const hint = folded !== undefined ? `; did you mean "${folded.path}"?` : didYouMean(target.path, byPath.keys()) || '.';
        reportAt(issues, 'partial.missing', `The request carries no partial "${target.path}"${hint}`, part.field);
      }
    }
  }
  for (const entry of byPath.values()) {
    if (used.has(entry)) continue;
    issues.add('partial.extra', `The partial "${entry.path}" is not included by any prompt; remove it from the request.`, entry.pointer, {
      file: entry.path,
    });
  }
}
