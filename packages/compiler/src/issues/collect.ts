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

interface Pending {
  code: IssueCode;
  message: string;
  pointer: string;
  where: Where;
}

/** Collects issues with offsets; positions, order and the cap are settled once, at the end. */
export class IssueCollector {
  private readonly pending: Pending[] = [];

  add(code: IssueCode, message: string, pointer: string, where: Where = {}): void {
    this.pending.push({ code, message, pointer, where });
  }

  get size(): number {
    return this.pending.length;
  }

  has(predicate: (code: IssueCode) => boolean): boolean {
    return this.pending.some((issue) => predicate(issue.code));
  }

  /** Issues in a stable order (file, position, pointer, code), at most `max` and a truncation note. */
  finish(max: number): Issue[] {
    const issues = this.pending.map(toIssue);
    const seen = new Set<string>();
    const unique = issues.filter((issue) => {
      const key = `${issue.file ?? ''}\u0000${issue.pointer}\u0000${issue.code}\u0000${issue.line ?? 0}:${issue.column ?? 0}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    unique.sort(compareIssues);
    if (unique.length <= max) return unique;
    const kept = unique.slice(0, max);
    kept.push({
      pointer: '',
      code: 'issues.truncated',
      message: `Too many issues: ${unique.length - max} more not shown (maxIssues is ${max}).`,
    });
    return kept;
  }
}

function toIssue({ code, message, pointer, where }: Pending): Issue {
  const issue: Issue = { pointer, code, message };
  if (where.file !== undefined) issue.file = where.file;
  if (where.source !== undefined && where.offset !== undefined) {
    const { line, column } = where.source.position(where.offset);
    issue.line = line;
    issue.column = column;
  } else if (where.line !== undefined && where.column !== undefined) {
    issue.line = where.line;
    issue.column = where.column;
  }
  return issue;
}

function compareIssues(a: Issue, b: Issue): number {
  return (
    compareText(a.file ?? '', b.file ?? '') ||
    (a.line ?? 0) - (b.line ?? 0) ||
    (a.column ?? 0) - (b.column ?? 0) ||
    compareText(a.pointer, b.pointer) ||
    compareText(a.code, b.code)
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
