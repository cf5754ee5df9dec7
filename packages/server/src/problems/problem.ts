import type { IssueCode } from '@hub/compiler';
import type { FieldIssue as WireFieldIssue } from '@hub/schemas';
import type { ContentIssueCode, RequestIssueCode } from './request-issues.js';
import { problemCatalog, type ProblemCode } from './catalog.js';

/** A field issue (DECISIONS.md): the compiler's issues, and the server's request.* ones (the document's FieldIssue). */
export type FieldIssue = Omit<WireFieldIssue, 'code'> & { code: RequestIssueCode | ContentIssueCode | IssueCode };

/** A failure to answer as a problem document. Throw it from a handler; the error handler renders it. */
export class HttpProblem extends Error {
  readonly code: ProblemCode;
  readonly detail: string;
  readonly issues: FieldIssue[] | undefined;
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    code: ProblemCode,
    detail: string,
    options: { issues?: FieldIssue[]; extensions?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.code = code;
    this.detail = detail;
    this.issues = options.issues;
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return problemCatalog[this.code].status;
  }
}

/** The problem document: the members of both shapes (DECISIONS.md, One hub, both shapes). */
export function toProblem(
  problem: HttpProblem,
  context: { problemBase: string; requestId: string },
): Record<string, unknown> {
  const { status, title } = problemCatalog[problem.code];
  const body: Record<string, unknown> = {
    type: `${context.problemBase}/problems/${problem.code}`,
    title,
    status,
    detail: problem.detail,
    code: problem.code,
    requestId: context.requestId,
    ...problem.extensions,
  };
  // The compiler's issues carry their did-you-mean as data (`suggestion`); the document's FieldIssue does not.
  if (problem.issues !== undefined)
    body.issues = problem.issues.map(({ suggestion: _, ...issue }: FieldIssue & { suggestion?: string }) => issue);
  return body;
}
