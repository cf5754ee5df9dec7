// What `hub deploy` sends and how it reports: the trigger files (all validated, then each
// installed on its own) and a project's configuration (one request).
import type { FieldIssue, Problem, WireSchema } from '@hub/schemas';
import type { Io } from './command.js';
import { displayPath, type Unit } from './discovery.js';
import { CliError } from './errors.js';
import { hubRequest, renderProblem, type HubAnswer } from './hub-client.js';
import { requestFor } from './payload.js';
import type { Unread } from './unread.js';

export interface Target {
  origin: string;
  token: string;
  dryRun: boolean;
  io: Io;
}

/** The configuration or the legacy bundle of `project`, installed (or only validated) in one request. */
export async function deployConfiguration(unit: Unit, project: string, { origin, token, dryRun, io }: Target): Promise<number> {
  const request = requestFor(unit, project);
  const answer = await hubRequest(origin, token, 'POST', dryRun ? request.validate : request.install, request.body);
  const what = `${unit.file}${contents(unit)}`;
  if (answer.status !== (dryRun ? 200 : 201)) {
    throw new CliError(`${dryRun ? 'Validating' : 'Installing'} ${what} for project ${project} failed: ${problemOf(answer, unit)}`);
  }
  if (dryRun) {
    io.stdout.write(`${what} is valid for project ${project} at ${origin}.\nDry run: nothing was installed.\n`);
    return 0;
  }
  const { version, versionId } = (answer.body ?? {}) as Unread<WireSchema<'ConfigurationRevision'>>;
  io.stdout.write(`Installed ${what} in project ${project} at ${origin}: version ${String(version)} (${String(versionId)}), now active.\n`);
  return 0;
}

/** What the hub answers about a trigger file; any other status concerns the whole deploy. */
const CONTENT_PROBLEMS = new Set([400, 413, 422]);

/**
 * The trigger files: each validated by the hub, none installed unless all are valid (and name
 * different triggers), then each installed in its own request. An install that fails for its
 * file's sake leaves the others to go on; one that fails for the deploy's (credential, hub) ends it.
 */
export async function deployTriggers(units: Unit[], { origin, token, dryRun, io }: Target): Promise<number> {
  const checked: { unit: Unit; body: string; install: string; name: string }[] = [];
  let invalid = 0;
  for (const unit of units) {
    const request = requestFor(unit);
    const answer = await hubRequest(origin, token, 'POST', request.validate, request.body);
    if (answer.status === 200) {
      checked.push({ unit, body: request.body, install: request.install, name: nameOf(answer) });
      continue;
    }
    const problem = problemOf(answer, unit);
    if (!CONTENT_PROBLEMS.has(answer.status)) throw new CliError(`Validating ${unit.file} failed: ${problem}\nNothing was installed.`);
    invalid++;
    io.stderr.write(`${unit.file}: invalid: ${problem}\n`);
  }
  if (invalid > 0) {
    io.stderr.write(`${count(invalid, 'trigger file')} of ${units.length} ${invalid === 1 ? 'is' : 'are'} invalid, so nothing was installed: every file must be valid before any is installed.\n`);
    return 1;
  }
  const clashes = sameNames(checked);
  if (clashes.length > 0) {
    io.stderr.write(`${clashes.join('\n')}\nNothing was installed: each trigger file needs a name of its own, or the later install replaces the earlier.\n`);
    return 1;
  }
  if (dryRun) {
    for (const { unit, name } of checked) io.stdout.write(`${unit.file}: valid (trigger ${name})\n`);
    io.stdout.write(`Dry run: ${count(checked.length, 'trigger file')} valid at ${origin}; nothing was installed.\n`);
    return 0;
  }
  return installTriggers(checked, { origin, token, io });
}

async function installTriggers(checked: { unit: Unit; body: string; install: string }[], { origin, token, io }: Pick<Target, 'origin' | 'token' | 'io'>): Promise<number> {
  let installed = 0;
  let failed = 0;
  let stopped = false;
  for (const { unit, body, install } of checked) {
    if (stopped) {
      io.stderr.write(`${unit.file}: not attempted, after the failure above.\n`);
      continue;
    }
    let answer: HubAnswer;
    try {
      answer = await hubRequest(origin, token, 'POST', install, body);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      answer = { status: 0, headers: new Headers(), body: undefined, text: error.message };
    }
    if (answer.status === 201) {
      const { name, version } = (answer.body ?? {}) as Unread<WireSchema<'TriggerRevision'>>;
      io.stdout.write(`${unit.file}: installed trigger ${String(name)}, version ${String(version)}\n`);
      installed++;
      continue;
    }
    failed++;
    stopped = !CONTENT_PROBLEMS.has(answer.status);
    io.stderr.write(`${unit.file}: not installed: ${answer.status === 0 ? answer.text : problemOf(answer, unit)}\n`);
  }
  if (failed === 0) {
    io.stdout.write(`Installed ${count(installed, 'trigger file')} at ${origin}.\n`);
    return 0;
  }
  const skipped = checked.length - installed - failed;
  const undone = installed === 0 ? 'Nothing was installed.' : `The ${count(installed, 'trigger')} installed above stay${installed === 1 ? 's' : ''} installed: a failed install does not undo the others.`;
  io.stderr.write(`Installed ${installed} of ${count(checked.length, 'trigger file')}: ${failed} failed${skipped === 0 ? '' : `, ${skipped} not attempted`}. ${undone}\n`);
  return 1;
}

function nameOf(answer: HubAnswer): string {
  const name = (answer.body as Unread<WireSchema<'TriggerValidation'>> | undefined)?.name;
  return typeof name === 'string' ? name : '?';
}

/** "a.yml, b.yml define the same trigger x", for each name that more than one file has. */
function sameNames(checked: { unit: Unit; name: string }[]): string[] {
  const files = new Map<string, string[]>();
  for (const { unit, name } of checked) files.set(name, [...(files.get(name) ?? []), unit.file]);
  return [...files].filter(([, list]) => list.length > 1).map(([name, list]) => `${list.join(', ')} define the same trigger ${name}.`);
}

/** A failed answer rendered, its issues placed in the repository's files (a partial's path is relative to its directory). */
function problemOf(answer: HubAnswer, unit: Unit): string {
  const body = answer.body as Unread<Problem> | null | undefined;
  if (typeof body !== 'object' || body === null || !Array.isArray(body.issues)) return renderProblem(answer, { file: unit.file });
  const issues = (body.issues as unknown[]).map((issue) => {
    if (typeof issue !== 'object' || issue === null) return issue;
    const file = (issue as Unread<FieldIssue>).file;
    return typeof file === 'string' ? { ...issue, file: displayPath(unit, file) } : issue;
  });
  return renderProblem({ ...answer, body: { ...body, issues } }, { file: unit.file });
}

function contents(unit: Unit): string {
  if (unit.kind === 'configuration') return unit.partials.length === 0 ? '' : ` with ${count(unit.partials.length, 'partial')}`;
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
