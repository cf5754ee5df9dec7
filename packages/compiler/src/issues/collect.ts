import type { SourceText } from '../source/text.js';
import type { IssueCode } from './codes.js';
import type { Issue } from './issue.js';

/** Where an issue is: a file, and an offset into that file's text or a position already known. */
export interface Where {
  file?: string | undefined;
  source?: SourceText | undefined;
  offset?: number | undefined;
  line?: number | undefined;
  column?: number | undefined;
}

/** A message with the replacement its "did you mean" names, if it names one (see Issue.suggestion). */
export interface Suggesting {
  message: string;
  suggestion: string | undefined;
}

/** A message, or a function that makes it: hints that cost time are made only for issues kept. */
export type Message = string | Suggesting | (() => string | Suggesting);

interface Pending {
  code: IssueCode;
  message: Message;
  pointer: string;
  where: Where;
}

/** Collects issues with offsets; positions, order and the cap are settled once, at the end. */
export class IssueCollector {
  private readonly pending: Pending[] = [];

  add(code: IssueCode, message: Message, pointer: string, where: Where = {}): void {
    this.pending.push({ code, message, pointer, where });
  }

  get size(): number {
    return this.pending.length;
  }

  has(predicate: (code: IssueCode) => boolean): boolean {
    return this.pending.some((issue) => predicate(issue.code));
  }

  /**
   * Issues in a stable order (file, position, pointer, code), at most `max`, and a truncation
   * note. Order needs only offsets: positions and messages are worked out for the kept ones.
   */
  finish(max: number): Issue[] {
    // Sorted first, stable, so that duplicates (same file, offset, pointer and code) are
    // neighbours and the first one added is kept: no key string or set per issue, which counts
    // with 100,000 issues.
    const sorted = this.pending
      .slice()
      .sort(
        (a, b) =>
          compareText(a.where.file ?? '', b.where.file ?? '') ||
          sortOffset(a.where) - sortOffset(b.where) ||
          compareText(a.pointer, b.pointer) ||
          compareText(a.code, b.code),
      );
    const kept: Issue[] = [];
    let unique = 0;
    let previous: Pending | undefined;
    for (const issue of sorted) {
      if (previous !== undefined && isDuplicate(previous, issue)) continue;
      previous = issue;
      if (unique++ < max) kept.push(toIssue(issue));
    }
    if (unique > max) {
      kept.push({
        pointer: '',
        code: 'issues.truncated',
        message: `Too many issues: ${unique - max} more not shown (maxIssues is ${max}).`,
      });
    }
    return kept;
  }
}

function isDuplicate(a: Pending, b: Pending): boolean {
  return (
    (a.where.file ?? '') === (b.where.file ?? '') &&
    a.pointer === b.pointer &&
    a.code === b.code &&
    sortOffset(a.where) === sortOffset(b.where)
  );
}

/** Offsets order issues within a file as positions do; a known line and column stand in for one. */
function sortOffset(where: Where): number {
  if (where.source !== undefined && where.offset !== undefined) return where.offset;
  if (where.line !== undefined && where.column !== undefined) return where.line * 2 ** 24 + where.column;
  return -1;
}

function toIssue({ code, message, pointer, where }: Pending): Issue {
  const made = typeof message === 'function' ? message() : message;
  const issue: Issue = { pointer, code, message: typeof made === 'string' ? made : made.message };
  if (where.file !== undefined) issue.file = where.file;
  if (where.source !== undefined && where.offset !== undefined) {
    const { line, column } = where.source.position(where.offset);
    issue.line = line;
    issue.column = column;
  } else if (where.line !== undefined && where.column !== undefined) {
    issue.line = where.line;
    issue.column = where.column;
  }
  if (typeof made !== 'string' && made.suggestion !== undefined) issue.suggestion = made.suggestion;
  return issue;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
