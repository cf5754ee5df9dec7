// `hub validate`'s output, pure: findings in, text or JSON out; the schedules with their next fire
// times, computed by the caller from its clock.
import type { Finding, Report, TimedSchedule } from '../check.js';
import { scheduleLine } from './schedules.js';

/** `file:line:column: code message`; `file: code message` for an issue without a position. Warnings say so. */
export function findingLine(finding: Finding): string {
  const at = finding.line === undefined ? finding.file : `${finding.file}:${finding.line}:${finding.column ?? 1}`;
  return `${at}: ${finding.severity === 'warning' ? 'warning: ' : ''}${finding.code} ${finding.message}`;
}

export function textReport(report: Report, schedules: readonly TimedSchedule[]): string {
  const lines = report.issues.map(findingLine);
  lines.push(...schedules.map(scheduleLine));
  const errors = report.issues.filter((issue) => issue.severity === 'error');
  const warnings = report.issues.length - errors.length;
  const files = count(report.files.length, 'file');
  const invalid = report.files.filter((file) => !file.valid).length;
  const parts = errors.length === 0 ? ['valid'] : [`${count(errors.length, 'issue')} in ${invalid} of them`];
  if (warnings > 0) parts.push(count(warnings, 'warning'));
  lines.push(`Checked ${files}: ${parts.join(', ')}.`);
  return `${lines.join('\n')}\n`;
}

/**
 * `{ valid, files: [{ path, kind, valid }], issues: [{ file, line?, column?, pointer, code, message, severity }],
 * schedules: [{ file, line, column, trigger, index, cron, timezone, next }] }`, `next` an ISO 8601 UTC instant or null.
 */
export function jsonReport(report: Report, schedules: readonly TimedSchedule[]): string {
  const issues = report.issues.map(({ file, line, column, pointer, code, message, severity }) => ({
    file,
    line,
    column,
    pointer,
    code,
    message,
    severity,
  }));
  const timed = schedules.map((entry) => ({ ...entry, next: entry.next?.toISOString() ?? null }));
  return `${JSON.stringify({ valid: report.valid, files: report.files, issues, schedules: timed }, null, 2)}\n`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
