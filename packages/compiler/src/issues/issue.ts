import type { IssueCode } from './codes.js';

/** A problem found in a document or a request, as plain data (DECISIONS.md, Field issues). */
export interface Issue {
  /** RFC 6901 pointer into the YAML document, or into the request for request-level problems. */
  pointer: string;
  code: IssueCode;
  /** One sentence, without the position. */
  message: string;
  /** The bundle or partial path the issue is in, where there is one. */
  file?: string;
  /** 1-based line of the offending node. */
  line?: number;
  /** 1-based column, in Unicode code points. */
  column?: number;
  /** The replacement the message's "did you mean" names, as data (an editor's quick fix puts it in place). */
  suggestion?: string;
}

export type CompileResult<T> = { ok: true; value: T; warnings: Issue[] } | { ok: false; issues: Issue[] };

export function escapePointerSegment(segment: string | number): string {
  if (typeof segment === 'number') return String(segment);
  if (!segment.includes('~') && !segment.includes('/')) return segment;
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function joinPointer(base: string, ...segments: (string | number)[]): string {
  let out = base;
  for (const segment of segments) out += `/${escapePointerSegment(segment)}`;
  return out;
}

export function splitPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}
