// `hub validate`'s offline check: each unit compiled with @hub/compiler as the hub would, without
// resources (no hub is asked which daemons exist), its issues placed in the repository's files.
import {
  compileBundle,
  compileConfiguration,
  compileTrigger,
  type CompileResult,
  type CompiledConfiguration,
  type Issue,
} from '@hub/compiler';
import { displayPath, type Unit } from './discovery.js';

/** An issue where a person finds it: `file` relative to the repository root. */
export interface Finding extends Issue {
  file: string;
  severity: 'error' | 'warning';
}

export interface CheckedFile {
  path: string;
  kind: 'trigger' | 'configuration' | 'partial' | 'hub' | 'workflow';
}

export interface Report {
  valid: boolean;
  files: (CheckedFile & { valid: boolean })[];
  issues: Finding[];
}

export function checkUnits(units: Unit[]): Report {
  const issues: Finding[] = [];
  const names = new Map<string, string>();
  for (const unit of units) {
    const result = compile(unit);
    const place =
      (severity: Finding['severity']) =>
      (issue: Issue): Finding => ({ ...issue, file: displayPath(unit, issue.file), severity });
    if (!result.ok) {
      issues.push(...result.issues.map(place('error')));
      continue;
    }
    issues.push(...result.warnings.map(place('warning')));
    if (unit.kind === 'trigger') {
      const trigger = result.value.triggers[0];
      if (trigger !== undefined) issues.push(...sameName(unit.file, trigger, names));
    }
  }
  const files = units.flatMap(filesOf);
  const failed = new Set(issues.filter((issue) => issue.severity === 'error').map((issue) => issue.file));
  return {
    valid: !issues.some((issue) => issue.severity === 'error'),
    files: files.map((file) => ({ ...file, valid: !failed.has(file.path) })),
    issues,
  };
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
