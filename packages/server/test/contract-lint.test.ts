// The committed OpenAPI document (what the hub serves) passes two linters, run as the CLI runs
// them: Spectral with the OWASP API Security ruleset (/.spectral.yaml) and Redocly
// (/redocly.yaml). Neither may report an error or a warning; the rules left off, and why, are in
// .spectral.yaml and docs/decisions.md. Neither makes a request: the ruleset comes from
// node_modules, and Redocly's telemetry and update check are off.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const DOCUMENT = 'packages/schemas/openapi.json';
const TIMEOUT = 60_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(bin: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      `${root}node_modules/.bin/${bin}`,
      args,
      {
        cwd: root,
        timeout: TIMEOUT,
        maxBuffer: 64 * 1024 * 1024,
        env: {
          ...process.env,
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
          DO_NOT_TRACK: '1',
          NO_COLOR: '1',
        },
      },
      (error, stdout, stderr) =>
        resolve({ code: typeof error?.code === 'number' ? error.code : error ? 1 : 0, stdout, stderr }),
    );
  });
}

interface SpectralResult {
  code: string;
  message: string;
  path: string[];
  severity: number;
}

interface RedoclyProblem {
  ruleId: string;
  severity: string;
  message: string;
  location?: { pointer?: string }[];
}

describe('the OpenAPI document passes its linters', () => {
  it(
    'Spectral, with spectral:oas and the OWASP ruleset: no error, no warning',
    async () => {
      const result = await run('spectral', [
        'lint',
        DOCUMENT,
        '--ruleset',
        '.spectral.yaml',
        '--format',
        'json',
        '--quiet',
      ]);
      let findings: SpectralResult[];
      try {
        findings = JSON.parse(result.stdout) as SpectralResult[];
      } catch {
        throw new Error(`spectral did not answer JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
      }
      // Severities: 0 error, 1 warning, 2 information, 3 hint. Only the first two count.
      const counted = findings.filter((finding) => finding.severity <= 1);
      const lines = counted.map(
        (finding) =>
          `${finding.severity === 0 ? 'error' : 'warning'} ${finding.code} at /${finding.path.join('/')}: ${finding.message}`,
      );
      expect(lines, lines.join('\n')).toEqual([]);
      expect(result.code, result.stderr).toBe(0);
    },
    TIMEOUT,
  );

  it(
    'Redocly, with redocly.yaml: no error, no warning',
    async () => {
      const result = await run('redocly', ['lint', DOCUMENT, '--config', 'redocly.yaml', '--format', 'json']);
      let report: { totals: { errors: number; warnings: number }; problems: RedoclyProblem[] };
      try {
        report = JSON.parse(result.stdout) as typeof report;
      } catch {
        throw new Error(`redocly did not answer JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
      }
      const lines = report.problems.map(
        (problem) =>
          `${problem.severity} ${problem.ruleId} at ${problem.location?.[0]?.pointer ?? '?'}: ${problem.message}`,
      );
      expect({ errors: report.totals.errors, warnings: report.totals.warnings }, lines.join('\n')).toEqual({
        errors: 0,
        warnings: 0,
      });
      expect(result.code, result.stderr).toBe(0);
    },
    TIMEOUT,
  );
});
