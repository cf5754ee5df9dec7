// `hub validate`'s check (check.ts) of one unit key, as LSP diagnostics per file: every file of
// the unit gets a list (an empty one clears what an editor shows), issues in a partial go to the
// partial, and positions become the 0-based UTF-16 range of the token the compiler points at.
import { join, sep } from 'node:path';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver';
import { checkUnits, filesOf, sourcesOf, type Finding } from '../check.js';
import type { Unit } from '../discovery.js';
import type { IncludeCache } from './include-cache.js';
import type { HubResources } from './resources.js';
import { lineStarts } from '../line-starts.js';
import { tokenRange } from './positions.js';
import type { DiagnosticData } from './quick-fix.js';
import type { Files } from './files.js';
import { unitsOf } from './workspace.js';

/** Absolute path → the diagnostics of that file. */
export type Published = Map<string, Diagnostic[]>;

export function diagnose(key: string, files: Files, includes: IncludeCache, resources?: HubResources): Published {
  const { root, units, refused } = unitsOf(key, files, includes);
  const texts = textsOf(units, root);
  const published: Published = new Map([...texts.keys()].map((path) => [path, []]));
  if (units.length === 0 && refused.length === 0) return published;
  const main = absolute(root, units[0]?.file ?? '');
  const starts = new Map<string, number[]>();
  const findings = checkUnits(units, refused).issues;
  if (resources !== undefined) findings.push(...resourceFindings(key, units, findings, resources));
  for (const finding of findings) {
    let path = absolute(root, finding.file);
    // A refused link is shown on itself (the unit does not hold it); any other issue about a
    // file the unit does not hold, on the unit's main file.
    if (!texts.has(path) && finding.code.startsWith('discovery.')) published.set(path, published.get(path) ?? []);
    else if (!texts.has(path)) path = main;
    const text = texts.get(path) ?? '';
    let lines = starts.get(path);
    if (lines === undefined) starts.set(path, (lines = lineStarts(text)));
    published.get(path)?.push(toDiagnostic(finding, text, lines, path === absolute(root, finding.file)));
  }
  return published;
}

/** The hub's resource issues of each unit that is valid offline (the hub resolves resources only for those). */
function resourceFindings(key: string, units: Unit[], findings: Finding[], resources: HubResources): Finding[] {
  const failed = new Set(findings.filter((finding) => finding.severity === 'error').map((finding) => finding.file));
  return units.flatMap((unit) =>
    filesOf(unit).some((file) => failed.has(file.path)) ? [] : (resources.issues(key, unit) ?? []),
  );
}

function toDiagnostic(finding: Finding, text: string, starts: number[], placed: boolean): Diagnostic {
  const range =
    placed && finding.line !== undefined
      ? tokenRange(text, finding.line, finding.column ?? 1, starts)
      : { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  return {
    range,
    severity: finding.severity === 'warning' ? DiagnosticSeverity.Warning : DiagnosticSeverity.Error,
    code: finding.code,
    source: 'hub',
    message: placed ? finding.message : `${finding.file}: ${finding.message}`,
    ...(finding.suggestion === undefined ? {} : { data: { suggestion: finding.suggestion } satisfies DiagnosticData }),
  };
}

/** The text of each file of the units, by absolute path. */
function textsOf(units: Unit[], root: string): Map<string, string> {
  return new Map(units.flatMap((unit) => sourcesOf(unit)).map(({ path, content }) => [absolute(root, path), content]));
}

function absolute(root: string, file: string): string {
  return join(root, ...file.split('/'))
    .split('/')
    .join(sep);
}
