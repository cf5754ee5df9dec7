import type { IssueCollector, Message } from '../issues/collect.js';
import type { IssueCode } from '../issues/codes.js';
import type { Limits } from '../limits/limits.js';
import type { Draft, Field } from '../model/draft.js';
import { locate } from '../source/locate.js';
import { covered } from '../source/yaml.js';

export interface RuleContext {
  draft: Draft;
  /** The document's shape: some rules hold for one shape only. */
  shape: 'configuration' | 'trigger' | 'bundle';
  issues: IssueCollector;
  warnings: IssueCollector;
  limits: Limits;
}

/** A cross-field check. Rules see raw values; reportAt drops what the schema already rejected. */
export type Rule = (context: RuleContext) => void;

export function reportAt(
  issues: IssueCollector,
  code: IssueCode,
  message: Message,
  at: Field,
  options: { key?: boolean } = {},
): void {
  if (rejected(at)) return;
  issues.add(code, message, at.pointer, locate(at.doc, at.pointer, options));
}

/** Whether the schema rejected this field or a mapping or list it lies in. */
export function rejected(at: Field | undefined): boolean {
  return at !== undefined && (covered(at.doc.rejected, at.pointer) || covered(at.doc.flagged, at.pointer));
}

export function where(at: Field): string {
  const { line, column } = at.doc.source.position(locate(at.doc, at.pointer).offset ?? 0);
  return `${at.doc.file === undefined ? '' : `${at.doc.file}:`}line ${line}, column ${column}`;
}

/** Reports every field after the first with the same text under `code`. */
export function reportDuplicates(
  context: RuleContext,
  fields: Field[],
  code: IssueCode,
  describe: (name: string, first: Field) => string,
): void {
  const seen = new Map<string, Field>();
  for (const at of fields) {
    if (typeof at.value !== 'string') continue;
    const first = seen.get(at.value);
    if (first === undefined) seen.set(at.value, at);
    else reportAt(context.issues, code, describe(at.value, first), at);
  }
}
