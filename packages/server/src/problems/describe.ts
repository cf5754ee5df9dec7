import { problemCatalog, type ProblemCode } from './catalog.js';

/** One problem, as its page at /problems/<code> shows it and its JSON answers it. */
export interface ProblemDescription {
  code: ProblemCode;
  status: number;
  title: string;
  meaning: string;
  action: string;
}

/** One line of the list at /problems. */
export interface ProblemSummary {
  code: ProblemCode;
  status: number;
  title: string;
}

/** The JSON answer of GET /problems. */
export interface ProblemList {
  problems: ProblemSummary[];
}

export function describeProblem(code: ProblemCode): ProblemDescription {
  const { status, title, meaning, action } = problemCatalog[code];
  return { code, status, title, meaning, action };
}

/** Every problem of the catalog, by status, in the catalog's order within a status. */
export function listProblems(): ProblemList {
  const codes = Object.keys(problemCatalog) as ProblemCode[];
  const problems = codes.map((code) => ({
    code,
    status: problemCatalog[code].status,
    title: problemCatalog[code].title,
  }));
  return { problems: problems.sort((a, b) => a.status - b.status) };
}
