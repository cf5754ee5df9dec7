import type { Request, Response } from 'express';
import { h } from 'preact';
import { ProblemIndexPage } from './pages/problem-index.js';
import { ProblemPage } from './pages/problem.js';
import { PAGE_POLICY, renderPage } from './pages/render.js';
import { isProblemCode } from './catalog.js';
import { describeProblem, listProblems } from './describe.js';
import { HttpProblem } from './problem.js';

export type { ProblemDescription, ProblemList, ProblemSummary } from './describe.js';

/** GET /problems/:code: the page of one problem, or its JSON for a client that prefers JSON. */
export function problemPage(req: Request, res: Response): void {
  const code = String(req.params.code);
  // Never echo the code: only the catalog's own text reaches a page.
  if (!isProblemCode(code))
    throw new HttpProblem('not_found', 'The hub has no problem of this code; GET /problems lists them all.');
  const problem = describeProblem(code);
  answer(req, res, problem, () => renderPage(h(ProblemPage, { problem })));
}

/** GET /problems: every problem with its status and title, as a page or as JSON. */
export function problemIndex(req: Request, res: Response): void {
  const list = listProblems();
  answer(req, res, list, () => renderPage(h(ProblemIndexPage, { list })));
}

/** HTML unless the client prefers JSON (no Accept, or neither acceptable, is HTML). */
function answer(req: Request, res: Response, data: unknown, html: () => string): void {
  res.vary('Accept');
  if (req.accepts(['text/html', 'application/json']) === 'application/json') {
    res.json(data);
    return;
  }
  res.setHeader('Content-Security-Policy', PAGE_POLICY);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.send(html());
}
