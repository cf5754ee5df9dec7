// `hub validate`'s offline check: each unit compiled with @hub/compiler as the hub would, without
// resources (no hub is asked which daemons exist), its issues placed in the repository's files.
import {
  compileBundle,
  compileConfiguration,
  compileTrigger,
  nextFireTimes,
  type CompileResult,
  type CompiledConfiguration,
  type Issue,
  type IssueCode,
} from '@hub/compiler';
import { parseDocument } from 'yaml';
import { refusalMessage, type DiscoveryIssueCode, type Refusal } from './boundary.js';
import { displayPath, type Unit } from './discovery.js';

/** An issue where a person finds it: `file` relative to the repository root. Discovery's codes are the CLI's own. */
export interface Finding extends Omit<Issue, 'code'> {
  code: IssueCode | DiscoveryIssueCode;
  file: string;
  severity: 'error' | 'warning';
}

export interface CheckedFile {
  path: string;
  kind: 'trigger' | 'configuration' | 'partial' | 'hub' | 'workflow';
}

/** One entry of a schedule of a valid document, where it is written. */
export interface ScheduleEntry {
  file: string;
  line: number;
  column: number;
  /** The trigger's name, and the entry's place in its schedule. */
  trigger: string;
  index: number;
  cron: string;
  timezone: string;
}

/** A schedule entry with its next fire time after some instant; null when it does not fire again. */
export type TimedSchedule = ScheduleEntry & { next: Date | null };

/** The report's schedule entries, each with its next fire time after `now`. */
export function timeSchedules(schedules: readonly ScheduleEntry[], now: Date): TimedSchedule[] {
  return schedules.map((entry) => ({ ...entry, next: nextFireTimes(entry.cron, entry.timezone, now, 1)[0] ?? null }));
}

export interface Report {
  valid: boolean;
  files: (CheckedFile & { valid: boolean })[];
  issues: Finding[];
  /** The schedule entries of the documents that compiled, in file order. */
  schedules: ScheduleEntry[];
}

/** `refused`: what discovery did not read apart from a unit's partials (a linked trigger file, a directory). */
export function checkUnits(units: Unit[], refused: readonly Refusal[] = []): Report {
  const issues: Finding[] = refused.map((refusal) => refusalFinding(refusal, refusal.path));
  const names = new Map<string, string>();
  const schedules: ScheduleEntry[] = [];
  for (const unit of units) {
    const result = compile(unit);
    const place =
      (severity: Finding['severity']) =>
      (issue: Issue): Finding => ({ ...issue, file: displayPath(unit, issue.file), severity });
    if (!result.ok) {
      issues.push(...placeRefusals(unit, result.issues.map(place('error'))));
      continue;
    }
    issues.push(...placeRefusals(unit, []));
    issues.push(...result.warnings.map(place('warning')));
    schedules.push(...schedulesOf(unit, result.value));
    if (unit.kind === 'trigger') {
      const trigger = result.value.triggers[0];
      if (trigger !== undefined) issues.push(...sameName(unit.file, trigger, names));
    }
  }
  const files = [
    ...refused.map((refusal): CheckedFile => ({ path: refusal.path, kind: kindOf(refusal.path) })),
    ...units.flatMap(filesOf),
  ];
  const failed = new Set(issues.filter((issue) => issue.severity === 'error').map((issue) => issue.file));
  return {
    valid: !issues.some((issue) => issue.severity === 'error'),
    files: files.map((file) => ({ ...file, valid: !failed.has(file.path) })),
    issues,
    schedules,
  };
}

function schedulesOf(unit: Unit, compiled: CompiledConfiguration): ScheduleEntry[] {
  return compiled.triggers.flatMap((trigger) =>
    trigger.events.flatMap((event) =>
      event.kind !== 'schedule'
        ? []
        : event.entries.map(({ cron, timezone, source }, index) => ({
            file: displayPath(unit, source.file),
            line: source.line,
            column: source.column,
            trigger: trigger.name,
            index,
            cron,
            timezone,
          })),
    ),
  );
}

/**
 * A unit's refused partials as issues: each at its include, in place of the compiler's
 * partial.missing there (the file was not given to it); one whose include is not found there
 * (the document could not be read that far) stands on the link itself.
 */
function placeRefusals(unit: Unit, findings: Finding[]): Finding[] {
  if (unit.kind === 'trigger' || unit.refused === undefined) return findings;
  const left = new Map(unit.refused.map((refusal) => [refusal.include, refusal]));
  const texts = new Map(sourcesOf(unit).map(({ path, content }) => [path, content]));
  const placed = findings.map((finding) => {
    if (finding.code !== 'partial.missing') return finding;
    const include = valueAt(texts.get(finding.file), finding.pointer);
    const refusal = include === undefined ? undefined : left.get(include);
    if (refusal === undefined) return finding;
    left.delete(include);
    return {
      ...refusalFinding(refusal, finding.file),
      pointer: finding.pointer,
      line: finding.line,
      column: finding.column,
    };
  });
  return [...placed, ...[...left.values()].map((refusal) => refusalFinding(refusal, refusal.path))];
}

function refusalFinding(refusal: Refusal, file: string): Finding {
  return { pointer: '', code: refusal.code, message: refusalMessage(refusal), file, severity: 'error' };
}

/** The string at an RFC 6901 pointer of a YAML text, if there is one. */
function valueAt(text: string | undefined, pointer: string): string | undefined {
  if (text === undefined) return undefined;
  const path = pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^(0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : segment));
  const value: unknown = parseDocument(text).getIn(path);
  return typeof value === 'string' ? value : undefined;
}

function kindOf(path: string): CheckedFile['kind'] {
  if (path.endsWith('/config.yml')) return 'configuration';
  if (path.endsWith('/hub.yml')) return 'hub';
  if (path.includes('/workflows/')) return path.includes('/partials/') ? 'partial' : 'workflow';
  return path.includes('/partials') ? 'partial' : 'trigger';
}

function compile(unit: Unit): CompileResult<CompiledConfiguration> {
  if (unit.kind === 'trigger') return compileTrigger({ yaml: unit.yaml });
  // The names of the partials not included serve "did you mean" for an include of none of them.
  if (unit.kind === 'configuration')
    return compileConfiguration({ yaml: unit.yaml, partials: unit.partials }, { partialNames: unit.partialNames });
  return compileBundle({ files: unit.files }, { partialNames: unit.partialNames });
}

/**
 * B triggers are named by the `name` inside them: two files of one directory with one name would
 * replace each other at the hub, the later install winning. The compiler sees one file at a time,
 * so this is checked here.
 */
function sameName(
  file: string,
  trigger: CompiledConfiguration['triggers'][number],
  names: Map<string, string>,
): Finding[] {
  // Files in different directories (named on the command line) are not deployed together.
  const key = `${file.slice(0, file.lastIndexOf('/') + 1)}\0${trigger.name}`;
  const first = names.get(key);
  if (first === undefined) {
    names.set(key, file);
    return [];
  }
  const { pointer, line, column } = trigger.source;
  const message = `The trigger "${trigger.name}" is also defined in ${first}; each trigger file needs a name of its own.`;
  return [{ code: 'trigger.duplicate_name', message, pointer, file, line, column, severity: 'error' }];
}

/** Each file of the unit with its text, its path relative to the repository root (as filesOf names it). */
export function sourcesOf(unit: Unit): { path: string; content: string }[] {
  if (unit.kind === 'trigger') return [{ path: unit.file, content: unit.yaml }];
  const entries = unit.kind === 'configuration' ? unit.partials : unit.files;
  const files = entries.map((entry) => ({ path: displayPath(unit, entry.path), content: entry.content }));
  return unit.kind === 'configuration' ? [{ path: unit.file, content: unit.yaml }, ...files] : files;
}

export function filesOf(unit: Unit): CheckedFile[] {
  if (unit.kind === 'trigger') return [{ path: unit.file, kind: 'trigger' }];
  if (unit.kind === 'configuration') {
    return [
      { path: unit.file, kind: 'configuration' },
      ...unit.partials.map((partial): CheckedFile => ({ path: displayPath(unit, partial.path), kind: 'partial' })),
    ];
  }
  return unit.files.map((entry): CheckedFile => ({
    path: displayPath(unit, entry.path),
    kind:
      entry.path === '.hub/hub.yml'
        ? 'hub'
        : entry.path.startsWith('.hub/workflows/partials/')
          ? 'partial'
          : 'workflow',
  }));
}
