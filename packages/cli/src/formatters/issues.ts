// `hub validate`'s output, pure: findings in, text or JSON out.
import type { Finding, Report } from '../check.js';

/** `file:line:column: code message`; `file: code message` for an issue without a position. Warnings say so. */
export function findingLine(finding: Finding): string {
  const at = finding.line === undefined ? finding.file : `${finding.file}:${finding.line}:${finding.column ?? 1}`;
  return `${at}: ${finding.severity === 'warning' ? 'warning: ' : ''}${finding.code} ${finding.message}`;
}

export function textReport(report: Report): string {
  const lines = report.issues.map(findingLine);
  const errors = report.issues.filter((issue) => issue.severity === 'error');
  const warnings = report.issues.length - errors.length;
  const files = count(report.files.length, 'file');
  const invalid = report.files.filter((file) => !file.valid).length;
  const parts = errors.length === 0 ? ['valid'] : [`${count(errors.length, 'issue')} in ${invalid} of them`];
  if (warnings > 0) parts.push(count(warnings, 'warning'));
  lines.push(`Checked ${files}: ${parts.join(', ')}.`);
  return `${lines.join('\n')}\n`;
}

/** `{ valid, files: [{ path, kind, valid }], issues: [{ file, line?, column?, pointer, code, message, severity }] }`. */
export function jsonReport(report: Report): string {
  const issues = report.issues.map(({ file, line, column, pointer, code, message, severity }) => ({
    file,
    line,
    column,
    pointer,
    code,
    message,
    severity,
  }));
  return `${JSON.stringify({ valid: report.valid, files: report.files, issues }, null, 2)}\n`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
