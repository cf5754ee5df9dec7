// What `hub deploy` sends and how it reports: the trigger files (all validated, then each
// installed on its own) and a project's configuration (one request).
import type { FieldIssue, Problem, WireSchema } from '@hub/schemas';
import type { Io } from './command.js';
import { jsonDeployReport, recordFile, recordIssues, type DeployReport } from './deploy-report.js';
import { displayPath, type Unit } from './discovery.js';
import { CliError } from './errors.js';
import { hubRequest, LoginEnded, renderProblem, type HubAnswer } from './hub-client.js';
import { requestFor } from './payload.js';
import type { Unread } from './unread.js';

export interface Target {
  origin: string;
  token: string;
  dryRun: boolean;
  io: Io;
  /** With --json: filled as the deploy goes, and printed instead of the lines for people. */
  report?: DeployReport;
}

/** A line for people on standard output; nothing with --json. */
function say({ io, report }: Pick<Target, 'io' | 'report'>, text: string): void {
  if (report === undefined) io.stdout.write(text);
}

/** With --json, the report: once the hub has answered about the files, whatever it answered. */
function finish({ io, report }: Pick<Target, 'io' | 'report'>, code: 0 | 1): number {
  if (report !== undefined) io.stdout.write(jsonDeployReport({ ...report, ok: code === 0 }));
  return code;
}

/** The configuration or the legacy bundle of `project`, installed (or only validated) in one request. */
export async function deployConfiguration(unit: Unit, project: string, target: Target): Promise<number> {
  const { origin, token, dryRun, report } = target;
  const request = requestFor(unit, project);
  const answer = await hubRequest(origin, token, 'POST', dryRun ? request.validate : request.install, request.body);
  const what = `${unit.file}${contents(unit)}`;
  if (answer.status !== (dryRun ? 200 : 201)) {
    const problem = problemOf(answer, unit);
    // A refusal of the files is reported; any other failure (credential, hub) concerns the deploy, not them.
    if (report !== undefined && CONTENT_PROBLEMS.has(answer.status)) {
      recordFile(report, unit, { status: 'invalid', error: firstLine(problem) });
      recordIssues(report, unit, answer.body);
      finish(target, 1);
    }
    throw new CliError(`${dryRun ? 'Validating' : 'Installing'} ${what} for project ${project} failed: ${problem}`);
  }
  if (dryRun) {
    if (report !== undefined) recordFile(report, unit, { status: 'valid' });
    say(target, `${what} is valid for project ${project} at ${origin}.\nDry run: nothing was installed.\n`);
    return finish(target, 0);
  }
  const { version, versionId } = (answer.body ?? {}) as Unread<WireSchema<'ConfigurationRevision'>>;
  if (report !== undefined) recordFile(report, unit, { status: 'installed', ...revision(version, versionId) });
  say(
    target,
    `Installed ${what} in project ${project} at ${origin}: version ${String(version)} (${String(versionId)}), now active.\n`,
  );
  return finish(target, 0);
}

/** What the hub answers about a trigger file; any other status concerns the whole deploy. */
const CONTENT_PROBLEMS = new Set([400, 413, 422]);

/**
 * The trigger files: each validated by the hub, none installed unless all are valid (and name
 * different triggers), then each installed in its own request. An install that fails for its
 * file's sake leaves the others to go on; one that fails for the deploy's (credential, hub) ends it.
 */
export async function deployTriggers(units: Unit[], target: Target): Promise<number> {
  const { origin, token, dryRun, io, report } = target;
  const checked: { unit: Unit; body: string; install: string; name: string }[] = [];
  let invalid = 0;
  for (const unit of units) {
    const request = requestFor(unit);
    const answer = await hubRequest(origin, token, 'POST', request.validate, request.body);
    if (answer.status === 200) {
      checked.push({ unit, body: request.body, install: request.install, name: nameOf(answer) });
      if (report !== undefined) recordFile(report, unit, { status: 'valid', trigger: nameOf(answer) });
      continue;
    }
    const problem = problemOf(answer, unit);
    if (!CONTENT_PROBLEMS.has(answer.status))
      throw new CliError(`Validating ${unit.file} failed: ${problem}\nNothing was installed.`);
    invalid++;
    io.stderr.write(`${unit.file}: invalid: ${problem}\n`);
    if (report !== undefined) {
      recordFile(report, unit, { status: 'invalid', error: firstLine(problem) });
      recordIssues(report, unit, answer.body);
    }
  }
  if (invalid > 0) {
    const invalidCount = `${count(invalid, 'trigger file')} of ${units.length} ${invalid === 1 ? 'is' : 'are'} invalid`;
    // A dry run installs nothing anyway: say what a deploy of these files would do.
    io.stderr.write(
      dryRun
        ? `${invalidCount}. Dry run: nothing was installed; a deploy of these files would install none of them until every one is valid.\n`
        : `${invalidCount}, so nothing was installed: every file must be valid before any is installed.\n`,
    );
    return finish(target, 1);
  }
  const clashes = sameNames(checked);
  if (clashes.length > 0) {
    io.stderr.write(
      `${clashes.join('\n')}\nNothing was installed: each trigger file needs a name of its own, or the later install replaces the earlier.\n`,
    );
    if (report !== undefined) recordClashes(report, checked);
    return finish(target, 1);
  }
  if (dryRun) {
    for (const { unit, name } of checked) say(target, `${unit.file}: valid (trigger ${name})\n`);
    say(target, `Dry run: ${count(checked.length, 'trigger file')} valid at ${origin}; nothing was installed.\n`);
    return finish(target, 0);
  }
  return installTriggers(checked, target);
}

/** In the report, each file after the first of a name is invalid, with the issue `hub validate` gives it (but its position). */
function recordClashes(report: DeployReport, checked: { unit: Unit; name: string }[]): void {
  const first = new Map<string, string>();
  for (const { unit, name } of checked) {
    const earlier = first.get(name);
    if (earlier === undefined) {
      first.set(name, unit.file);
      continue;
    }
    const message = `The trigger "${name}" is also defined in ${earlier}; each trigger file needs a name of its own.`;
    recordFile(report, unit, { status: 'invalid', error: message });
    report.issues.push({
      file: unit.file,
      pointer: '/name',
      code: 'trigger.duplicate_name',
      message,
      severity: 'error',
    });
  }
}

async function installTriggers(
  checked: { unit: Unit; body: string; install: string }[],
  target: Target,
): Promise<number> {
  const { origin, token, io, report } = target;
  let installed = 0;
  let failed = 0;
  let stopped = false;
  for (const { unit, body, install } of checked) {
    if (stopped) {
      io.stderr.write(`${unit.file}: not attempted, after the failure above.\n`);
      if (report !== undefined) recordFile(report, unit, { status: 'not_attempted' });
      continue;
    }
    let answer: HubAnswer;
    try {
      answer = await hubRequest(origin, token, 'POST', install, body);
    } catch (error) {
      if (!(error instanceof CliError) || error instanceof LoginEnded) throw error;
      answer = { status: 0, headers: new Headers(), body: undefined, text: error.message };
    }
    if (answer.status === 201) {
      const { name, version } = (answer.body ?? {}) as Unread<WireSchema<'TriggerRevision'>>;
      say(target, `${unit.file}: installed trigger ${String(name)}, version ${String(version)}\n`);
      if (report !== undefined)
        recordFile(report, unit, {
          status: 'installed',
          ...(typeof name === 'string' ? { trigger: name } : {}),
          ...revision(version, undefined),
        });
      installed++;
      continue;
    }
    failed++;
    stopped = !CONTENT_PROBLEMS.has(answer.status);
    const problem = answer.status === 0 ? answer.text : problemOf(answer, unit);
    io.stderr.write(`${unit.file}: not installed: ${problem}\n`);
    if (report !== undefined) {
      recordFile(report, unit, { status: 'failed', error: firstLine(problem) });
      recordIssues(report, unit, answer.body);
    }
  }
  if (failed === 0) {
    say(target, `Installed ${count(installed, 'trigger file')} at ${origin}.\n`);
    return finish(target, 0);
  }
  const skipped = checked.length - installed - failed;
  const undone =
    installed === 0
      ? 'Nothing was installed.'
      : `The ${count(installed, 'trigger')} installed above stay${installed === 1 ? 's' : ''} installed: a failed install does not undo the others.`;
  io.stderr.write(
    `Installed ${installed} of ${count(checked.length, 'trigger file')}: ${failed} failed${skipped === 0 ? '' : `, ${skipped} not attempted`}. ${undone}\n`,
  );
  return finish(target, 1);
}

/** The version (and versionId) of an installed revision, those the hub sent. */
function revision(version: unknown, versionId: unknown): { version?: number; versionId?: string } {
  return {
    ...(typeof version === 'number' ? { version } : {}),
    ...(typeof versionId === 'string' ? { versionId } : {}),
  };
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}

function nameOf(answer: HubAnswer): string {
  const name = (answer.body as Unread<WireSchema<'TriggerValidation'>> | undefined)?.name;
  return typeof name === 'string' ? name : '?';
}

/** "a.yml, b.yml define the same trigger x", for each name that more than one file has. */
function sameNames(checked: { unit: Unit; name: string }[]): string[] {
  const files = new Map<string, string[]>();
  for (const { unit, name } of checked) files.set(name, [...(files.get(name) ?? []), unit.file]);
  return [...files]
    .filter(([, list]) => list.length > 1)
    .map(([name, list]) => `${list.join(', ')} define the same trigger ${name}.`);
}

/** A failed answer rendered, its issues placed in the repository's files (a partial's path is relative to its directory). */
function problemOf(answer: HubAnswer, unit: Unit): string {
  const body = answer.body as Unread<Problem> | null | undefined;
  if (typeof body !== 'object' || body === null || !Array.isArray(body.issues))
    return renderProblem(answer, { file: unit.file });
  const issues = (body.issues as unknown[]).map((issue) => {
    if (typeof issue !== 'object' || issue === null) return issue;
    const file = (issue as Unread<FieldIssue>).file;
    return typeof file === 'string' ? { ...issue, file: displayPath(unit, file) } : issue;
  });
  return renderProblem({ ...answer, body: { ...body, issues } }, { file: unit.file });
}

function contents(unit: Unit): string {
  if (unit.kind === 'configuration')
    return unit.partials.length === 0 ? '' : ` with ${count(unit.partials.length, 'partial')}`;
  if (unit.kind === 'bundle') {
    const partials = unit.files.filter((file) => file.path.startsWith('.hub/workflows/partials/')).length;
    const workflows = unit.files.length - 1 - partials;
    return ` with ${count(workflows, 'workflow')}${partials === 0 ? '' : ` and ${count(partials, 'partial')}`}`;
  }
  return '';
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
