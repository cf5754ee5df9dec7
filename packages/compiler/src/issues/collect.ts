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

/** A message, or a function that makes it: hints that cost time are made only for issues kept. */
export type Message = string | (() => string);

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
    const keyed = this.pending.map((issue) => ({ issue, at: sortOffset(issue.where) }));
    const seen = new Set<string>();
    const unique = keyed.filter(({ issue, at }) => {
      const key = `${issue.where.file ?? ''}\u0000${issue.pointer}\u0000${issue.code}\u0000${at}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    unique.sort(
      (a, b) =>
        compareText(a.issue.where.file ?? '', b.issue.where.file ?? '') ||
        a.at - b.at ||
        compareText(a.issue.pointer, b.issue.pointer) ||
        compareText(a.issue.code, b.issue.code),
    );
    const kept = unique.slice(0, max).map(({ issue }) => toIssue(issue));
    if (unique.length > max) {
      kept.push({
        pointer: '',
        code: 'issues.truncated',
        message: `Too many issues: ${unique.length - max} more not shown (maxIssues is ${max}).`,
      });
    }
    return kept;
  }
}

/** Offsets order issues within a file as positions do; a known line and column stand in for one. */
function sortOffset(where: Where): number {
  if (where.source !== undefined && where.offset !== undefined) return where.offset;
  if (where.line !== undefined && where.column !== undefined) return where.line * 2 ** 24 + where.column;
  return -1;
}

function toIssue({ code, message, pointer, where }: Pending): Issue {
  const issue: Issue = { pointer, code, message: typeof message === 'string' ? message : message() };
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

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
