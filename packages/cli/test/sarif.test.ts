// `hub validate --format sarif` as code scanning gets it: the bundled `hub` run on repositories on
// disk, its output checked against the SARIF 2.1.0 schema and against what `--format json` finds
// (the same issues, rules, files and positions, columns converted to UTF-16 code units).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { issueCodes } from '@hub/compiler';
import type { ValidateFunction } from 'ajv';
import ajvDraft04 from 'ajv-draft-04';
import ajvFormats from 'ajv-formats';
import type { Log, Result } from 'sarif';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ruleHelp } from '../src/formatters/rule-help.js';
import { DOCS, generate, sections, TARGET } from '../scripts/generate-rule-help.js';
import { configurationYaml, HUB_YML, triggerYaml, workflowYaml } from './support/documents.js';
import { hubIn, writeTree } from './support/repo.js';

const CLI = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

/**
 * The SARIF 2.1.0 schema as @microsoft/jest-sarif carries it (draft-04), compiled by ajv's draft-04
 * build with the formats; one of its patterns is not valid as a Unicode regular expression, hence
 * unicodeRegExp: false.
 */
function sarifSchema(): ValidateFunction {
  const path = join(require.resolve('@microsoft/jest-sarif/package.json'), '../lib/schemas/sarif-2.1.0-rtm.5.json');
  const schema = JSON.parse(readFileSync(path, 'utf8')) as { $schema: string };
  expect(schema.$schema).toBe('http://json-schema.org/draft-04/schema#');
  const ajv = new ajvDraft04.default({ allErrors: true, unicodeRegExp: false });
  ajvFormats.default(ajv);
  return ajv.compile(schema);
}

interface JsonFinding {
  file: string;
  line?: number;
  column?: number;
  pointer: string;
  code: string;
  severity: 'error' | 'warning';
}

let dir: string;
let validateSarif: ValidateFunction;

beforeAll(() => {
  validateSarif = sarifSchema();
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hub-sarif-'));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** `hub validate --format sarif` and `--format json` on `files`: the log (valid against the schema) and the findings. */
async function both(files: Record<string, string>) {
  writeTree(dir, { '.git/HEAD': 'ref: refs/heads/main\n', ...files });
  const sarif = await hubIn(dir, ['validate', '--format', 'sarif']);
  const json = await hubIn(dir, ['validate', '--format', 'json']);
  expect(sarif.stderr).toBe(json.stderr);
  expect(sarif.code).toBe(json.code);
  const log = JSON.parse(sarif.stdout) as Log;
  if (!validateSarif(log)) throw new Error(`not SARIF 2.1.0: ${JSON.stringify(validateSarif.errors, null, 2)}`);
  return { code: sarif.code, log, findings: (JSON.parse(json.stdout) as { issues: JsonFinding[] }).issues };
}

/** A code-point column as UTF-16 code units, counted here from the file on disk. */
function utf16(file: string, line: number, column: number): number {
  const text = readFileSync(join(dir, file), 'utf8');
  const lineText = text.split(/\r\n|\r|\n/)[line - 1] ?? '';
  return [...lineText].slice(0, column - 1).join('').length + 1;
}

/** What a result says, in the terms of a JSON finding. */
function located(result: Result) {
  const physical = result.locations?.[0]?.physicalLocation;
  return {
    code: result.ruleId,
    level: result.level,
    uri: physical?.artifactLocation?.uri,
    uriBaseId: physical?.artifactLocation?.uriBaseId,
    region: physical?.region,
    pointer: (result.properties as { pointer?: string } | undefined)?.pointer,
  };
}

/** What the JSON findings say a result should be: the same file (as a URI), line and column (in UTF-16 units). */
function expected(finding: JsonFinding) {
  return {
    code: finding.code,
    level: finding.severity,
    uri: finding.file.split('/').map(encodeURIComponent).join('/'),
    uriBaseId: '%SRCROOT%',
    region:
      finding.line === undefined
        ? undefined
        : { startLine: finding.line, startColumn: utf16(finding.file, finding.line, finding.column ?? 1) },
    pointer: finding.pointer,
  };
}

const byPlace = (
  a: { uri?: string | undefined; code?: string | undefined; pointer?: string | undefined },
  b: typeof a,
) => `${a.uri} ${a.code} ${a.pointer}`.localeCompare(`${b.uri} ${b.code} ${b.pointer}`);

/** The log's one run, checked for what every log has: hub and its version, rules that results index. */
function run(log: Log) {
  expect(log.version).toBe('2.1.0');
  expect(log.runs).toHaveLength(1);
  const [only] = log.runs;
  if (only === undefined) throw new Error('no run');
  const { version } = JSON.parse(readFileSync(join(CLI, 'package.json'), 'utf8')) as { version: string };
  expect(only.tool.driver).toMatchObject({ name: 'hub', version });
  expect(only.columnKind).toBe('utf16CodeUnits');
  expect(only.originalUriBaseIds).toEqual({ '%SRCROOT%': { uri: pathToFileURL(join(dir, '/')).href } });
  const rules = only.tool.driver.rules ?? [];
  for (const result of only.results ?? []) expect(rules[result.ruleIndex ?? -1]?.id).toBe(result.ruleId);
  expect(rules.map((rule) => rule.id).sort()).toEqual(
    [...new Set((only.results ?? []).map((result) => result.ruleId))].sort(),
  );
  return {
    ...only,
    rules,
    results: only.results ?? [],
    artifacts: (only.artifacts ?? []).map((artifact) => artifact.location?.uri),
  };
}

describe('hub validate --format sarif', () => {
  it('reports issues in triggers at the positions --format json gives, astral characters before a column counting twice', async () => {
    const emoji = triggerYaml('nightly').replace(
      / {2}agent:\n[\s\S]*$/,
      '  agent: { prompt: "😀😀 {{ prompt }}", provider: codex, modle: x, max_runtime: 30m }\n',
    );
    const { code, log, findings } = await both({
      '.hub/triggers/nightly.yml': emoji,
      '.hub/triggers/bad name.yml': triggerYaml('bad').replace('filters:', 'filter:'),
      '.hub/triggers/a.yml': triggerYaml('twin'),
      '.hub/triggers/b.yml': triggerYaml('twin'),
    });
    expect(code).toBe(1);
    const { results, artifacts } = run(log);
    expect(results.map(located).sort(byPlace)).toEqual(findings.map(expected).sort(byPlace));
    expect(findings.map((finding) => finding.code).sort()).toEqual([
      'schema.unknown_key',
      'schema.unknown_key',
      'trigger.allowlist_required',
      'trigger.duplicate_name',
    ]);
    const modle = results.map(located).find((result) => result.uri === '.hub/triggers/nightly.yml');
    // "modle" after two emoji: column 56 in code points, 58 in UTF-16 code units.
    expect(modle?.region).toEqual({ startLine: 9, startColumn: 58 });
    expect(findings.find((finding) => finding.file === '.hub/triggers/nightly.yml')?.column).toBe(56);
    expect(artifacts.sort()).toEqual([
      '.hub/triggers/a.yml',
      '.hub/triggers/b.yml',
      '.hub/triggers/bad%20name.yml',
      '.hub/triggers/nightly.yml',
    ]);
  });

  it('places an issue in a partial in the partial, and a warning as a warning', async () => {
    const { code, log, findings } = await both({
      '.hub/config.yml': configurationYaml(['testing.md']),
      '.hub/partials/testing.md': 'Intro.\n🚀🚀 Fix {{ inputs.brnch }} now.\n',
    });
    expect(code).toBe(1);
    const { results, artifacts } = run(log);
    expect(results.map(located).sort(byPlace)).toEqual(findings.map(expected).sort(byPlace));
    expect(results.map(located)).toContainEqual(
      expect.objectContaining({
        code: 'template.unknown_placeholder',
        uri: '.hub/partials/testing.md',
        region: { startLine: 2, startColumn: 10 },
      }),
    );
    expect(artifacts.sort()).toEqual(['.hub/config.yml', '.hub/partials/testing.md']);

    // Valid but for an environment no step runs in: a warning, and exit 0.
    const unused = configurationYaml([]).replace(
      'triggers:',
      '  - { name: spare, kind: daemon, daemon: dev-box, cwd: ~/spare }\ntriggers:',
    );
    const warned = await both({ '.hub/config.yml': unused });
    expect(warned.code).toBe(0);
    const { results: warnings, rules } = run(warned.log);
    expect(warnings.map(located)).toEqual(warned.findings.map(expected));
    expect(warnings.map(located)).toEqual([expect.objectContaining({ code: 'environment.unused', level: 'warning' })]);
    expect(rules[0]?.defaultConfiguration?.level).toBe('warning');
  });

  it('reports issues in a legacy bundle in its workflow files', async () => {
    const { code, log, findings } = await both({
      '.hub/hub.yml': HUB_YML,
      '.hub/workflows/review.yml': workflowYaml('review', ['partials/review.md']).replace(
        'agent: reviewer',
        'agent: reviwer',
      ),
      '.hub/workflows/partials/review.md': 'Review 🚀 {{ nope }}.\n',
    });
    expect(code).toBe(1);
    const { results, artifacts } = run(log);
    expect(results.map(located).sort(byPlace)).toEqual(findings.map(expected).sort(byPlace));
    expect(results.map((result) => `${result.ruleId} ${located(result).uri}`).sort()).toEqual([
      'step.unknown_agent .hub/workflows/review.yml',
      'template.unknown_placeholder .hub/workflows/partials/review.md',
    ]);
    expect(artifacts.sort()).toEqual([
      '.hub/hub.yml',
      '.hub/workflows/partials/review.md',
      '.hub/workflows/review.yml',
    ]);
  });

  it('locates an issue without a position at its file alone (no region)', async () => {
    // 101 unknown keys: past maxIssues (100), the last entry is issues.truncated, with no line.
    const keys = Array.from({ length: 101 }, (_, n) => `extra${n}: 1\n`).join('');
    const { code, log, findings } = await both({ '.hub/triggers/many.yml': `${triggerYaml('many')}${keys}` });
    expect(code).toBe(1);
    const { results } = run(log);
    expect(results.map(located).sort(byPlace)).toEqual(findings.map(expected).sort(byPlace));
    const truncated = results.map(located).filter((result) => result.code === 'issues.truncated');
    expect(truncated).toEqual([expect.objectContaining({ uri: '.hub/triggers/many.yml', region: undefined })]);
  });

  it('for a clean repository is a log with no results, and exit 0', async () => {
    const { code, log, findings } = await both({
      '.hub/triggers/nightly.yml': triggerYaml('nightly'),
      '.hub/config.yml': configurationYaml(['testing.md']),
      '.hub/partials/testing.md': 'Test.\n',
    });
    expect(code).toBe(0);
    expect(findings).toEqual([]);
    const { results, rules, artifacts } = run(log);
    expect(results).toEqual([]);
    expect(rules).toEqual([]);
    expect(artifacts.sort()).toEqual(['.hub/config.yml', '.hub/partials/testing.md', '.hub/triggers/nightly.yml']);
  });

  it('gives each rule its code, the catalog line and the help of docs/issue-codes.md', async () => {
    const { log } = await both({ '.hub/triggers/bad.yml': triggerYaml('bad').replace('filters:', 'filter:') });
    const { rules } = run(log);
    const docs = sections(readFileSync(DOCS, 'utf8'));
    expect(rules.map((rule) => rule.id).sort()).toEqual(['schema.unknown_key', 'trigger.allowlist_required']);
    for (const rule of rules) {
      const code = rule.id as keyof typeof issueCodes;
      expect(rule.shortDescription?.text).toBe(issueCodes[code]);
      expect(rule.help?.markdown).toBe(docs[code]);
      expect(rule.help?.text).not.toContain('```');
      expect(docs[code]?.startsWith(rule.fullDescription?.markdown ?? '\0')).toBe(true);
    }
  });

  it('keeps fingerprints stable when lines move, distinct between issues', async () => {
    const bad = triggerYaml('bad').replace('filters:', 'filter:');
    const first = run((await both({ '.hub/triggers/bad.yml': bad })).log).results;
    const moved = run((await both({ '.hub/triggers/bad.yml': `# a comment\n\n${bad}` })).log).results;
    const prints = (results: Result[]) =>
      results.map((result) => `${result.ruleId} ${result.partialFingerprints?.['hubIssue/v1']}`).sort();
    expect(prints(moved)).toEqual(prints(first));
    expect(new Set(first.map((result) => result.partialFingerprints?.['hubIssue/v1'])).size).toBe(first.length);
    expect(moved.map((result) => result.locations?.[0]?.physicalLocation?.region?.startLine).sort()).not.toEqual(
      first.map((result) => result.locations?.[0]?.physicalLocation?.region?.startLine).sort(),
    );
  });

  it('is a usage error with --json, and --format lists it', async () => {
    writeTree(dir, { '.hub/triggers/nightly.yml': triggerYaml('nightly') });
    const conflict = await hubIn(dir, ['validate', '--json', '--format', 'sarif']);
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toMatch(/--json and --format sarif conflict/);
    const unknown = await hubIn(dir, ['validate', '--format', 'xml']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/give text, json or sarif/);
    const help = await hubIn(dir, ['validate', '--help']);
    expect(help.stdout).toMatch(/--format text\|json\|sarif/);
  });
});

describe('the SARIF formatter in the bundle', () => {
  it('is a chunk of its own, which hub validate imports only for --format sarif', () => {
    const { chunks } = JSON.parse(readFileSync(join(CLI, 'dist/bundle/modules.json'), 'utf8')) as {
      chunks: Record<string, string[]>;
    };
    const holding = (module: string) => Object.entries(chunks).filter(([, modules]) => modules.includes(module));
    const [sarif] = holding('dist/formatters/sarif.js');
    expect(sarif?.[1].sort()).toEqual(['dist/formatters/rule-help.js', 'dist/formatters/sarif.js']);
    const [validate] = holding('dist/commands/validate.js');
    const source = readFileSync(join(CLI, 'dist/bundle', validate?.[0] ?? ''), 'utf8');
    // Named in a dynamic import() only, never in a static one (`from "./x.js"` or `import "./x.js"`).
    const name = `["'\`]\\./${(sarif?.[0] ?? '').replace(/[.-]/g, '\\$&')}["'\`]`;
    expect(source).toMatch(new RegExp(`import\\(\\s*${name}\\s*\\)`));
    expect(source).not.toMatch(new RegExp(`(from|import)\\s*${name}`));
  });
});

describe('the generated rule help', () => {
  it(`${TARGET} is what the generator makes of docs/issue-codes.md (regenerated in a child process)`, () => {
    expect(() =>
      execFileSync(process.execPath, [join(CLI, 'scripts/generate-rule-help.js'), '--check'], { stdio: 'pipe' }),
    ).not.toThrow();
    expect(generate()).toBe(readFileSync(join(CLI, TARGET), 'utf8'));
  });

  it('goes stale when the docs change: the drift check would fail', () => {
    const docs = readFileSync(DOCS, 'utf8');
    const committed = readFileSync(join(CLI, TARGET), 'utf8');
    expect(generate(docs.replace('### `yaml.syntax`\n', '### `yaml.syntax`\nChanged.\n'))).not.toBe(committed);
  });

  it('has a section for every issue code the compiler or hub validate reports', () => {
    expect(Object.keys(issueCodes).filter((code) => !(code in ruleHelp))).toEqual([]);
  });

  it('reads a section to its end, and a YAML comment in an example is not a heading', () => {
    const markdown =
      '## Group\n\n### `a.b`\nProse `x`.\n```yaml\n# comment\nkey: 1\n```\n\n### `c.d`\nMore.\n## Next\nNot c.d.\n';
    expect(sections(markdown)).toEqual({ 'a.b': 'Prose `x`.\n```yaml\n# comment\nkey: 1\n```', 'c.d': 'More.' });
  });
});
