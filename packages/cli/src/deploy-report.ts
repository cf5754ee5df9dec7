// `hub deploy --json`: what became of each file, and the hub's issues in the shape of
// `hub validate --json`'s, so that one reader serves both.
import type { FieldIssue, Problem } from '@hub/schemas';
import { displayPath, type Unit } from './discovery.js';
import { isObject } from './hub-client.js';
import type { Unread } from './unread.js';

/** `valid`: validated (a dry run, or before a failed install of another); `not_attempted`: after a failure of the whole deploy. */
export type FileStatus = 'valid' | 'invalid' | 'installed' | 'failed' | 'not_attempted';

export interface DeployedFile {
  path: string;
  /** As `hub validate --json` names them: a legacy bundle is its `hub` file. */
  kind: 'trigger' | 'configuration' | 'hub';
  status: FileStatus;
  /** The trigger's name, once the hub has read it. */
  trigger?: string;
  /** The installed revision: a trigger's version, or a configuration's version and versionId. */
  version?: number;
  versionId?: string;
  /** Why it is invalid or failed: the problem's first line, as standard error has it. */
  error?: string;
}

/** An issue as `hub validate --json` prints it; the hub's are all errors. */
export interface JsonIssue {
  file: string;
  line?: number;
  column?: number;
  pointer: string;
  code: string;
  message: string;
  severity: 'error';
}

export interface DeployReport {
  origin: string;
  project: string | null;
  dryRun: boolean;
  /** Everything valid and (without --dry-run) installed: exit code 0. */
  ok: boolean;
  files: DeployedFile[];
  issues: JsonIssue[];
}

export function deployReport(origin: string, project: string | undefined, dryRun: boolean): DeployReport {
  return { origin, project: project ?? null, dryRun, ok: false, files: [], issues: [] };
}

/** Records (or updates) the outcome of `unit`'s file. */
export function recordFile(report: DeployReport, unit: Unit, outcome: Omit<DeployedFile, 'path' | 'kind'>): void {
  const entry: DeployedFile = { path: unit.file, kind: unit.kind === 'bundle' ? 'hub' : unit.kind, ...outcome };
  const at = report.files.findIndex((file) => file.path === unit.file);
  if (at === -1) report.files.push(entry);
  else report.files[at] = { ...report.files[at], ...entry };
}

/** The field issues of a refused answer's problem, each placed in the repository's file it concerns. */
export function recordIssues(report: DeployReport, unit: Unit, body: unknown): void {
  report.issues.push(...issuesOf(unit, body));
}

/** A refused answer's field issues as `hub validate --json` prints them, in the unit's files (also hub lsp's resource issues). */
export function issuesOf(unit: Unit, body: unknown): JsonIssue[] {
  const issues =
    isObject(body) && Array.isArray((body as Unread<Problem>).issues)
      ? ((body as Unread<Problem>).issues as unknown[])
      : [];
  return issues.filter(isObject).map((issue) => {
    const { file, line, column, pointer, code, message } = issue as Unread<FieldIssue>;
    return {
      file: displayPath(unit, typeof file === 'string' ? file : undefined),
      ...(Number.isInteger(line) ? { line: line as number } : {}),
      ...(Number.isInteger(column) ? { column: column as number } : {}),
      pointer: typeof pointer === 'string' ? pointer : '',
      code: typeof code === 'string' ? code : 'issue',
      message: typeof message === 'string' ? message : '',
      severity: 'error',
    };
  });
}

export function jsonDeployReport(report: DeployReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
