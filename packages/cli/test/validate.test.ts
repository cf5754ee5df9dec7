// Discovery (what is read, from where, byte for byte) and `hub validate` as a user meets it:
// the repository root, named files, output formats, and exit codes 0, 1 and 2.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discover } from '../src/discovery.js';
import { includesOf } from '../src/includes.js';
import { requestFor } from '../src/payload.js';
import { configurationYaml, HUB_YML, triggerYaml, workflowYaml } from './support/documents.js';
import { hubIn, writeTree } from './support/repo.js';

const BOM = '\uFEFF';
/** What editors leave in files: a byte order mark, CRLF line ends, trailing spaces and tabs. */
const crlf = (text: string) => `${BOM}${text.replace(/\n/g, '  \r\n')}`;

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hub-validate-'));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('discovery', () => {
  it('reads the configuration and exactly the partials it includes, byte for byte', async () => {
    const config = crlf(
      configurationYaml(['testing.md', 'sub/deep.md', 'missing.md', 'Other.md', './dot.md', 'testing.md']),
    );
    const testing = `${BOM}Run the tests.  \r\nAll of them.\t\r\n\r\n`;
    writeTree(dir, {
      '.hub/config.yml': config,
      '.hub/partials/testing.md': testing,
      '.hub/partials/sub/deep.md': 'deep\n',
      '.hub/partials/other.md': 'included as Other.md, which is another name\n',
      '.hub/partials/dot.md': 'included as ./dot.md, which is not canonical\n',
      '.hub/partials/unused.md': 'included by nothing\n',
    });
    const found = await discover(dir);
    expect(found.configuration).toEqual({
      kind: 'configuration',
      file: '.hub/config.yml',
      dir: '.hub/',
      yaml: config,
      partials: [
        { path: 'sub/deep.md', content: 'deep\n' },
        { path: 'testing.md', content: testing },
      ],
      partialNames: ['dot.md', 'other.md', 'sub/deep.md', 'testing.md', 'unused.md'],
    });
    if (found.configuration?.kind !== 'configuration') throw new Error('no configuration');
    expect(Buffer.from(found.configuration.yaml).equals(readFileSync(join(dir, '.hub/config.yml')))).toBe(true);
    expect(
      Buffer.from(found.configuration.partials[1]?.content ?? '').equals(
        readFileSync(join(dir, '.hub/partials/testing.md')),
      ),
    ).toBe(true);
    expect(found.triggers).toEqual([]);
    expect(found.bundle).toBeUndefined();
  });

  it('reads .hub/triggers/*.yml in name order, not *.yaml (said in a note), nor subdirectories', async () => {
    const a = crlf(triggerYaml('a'));
    writeTree(dir, {
      '.hub/triggers/b.yml': triggerYaml('b'),
      '.hub/triggers/a.yml': a,
      '.hub/triggers/c.yaml': triggerYaml('c'),
      '.hub/triggers/nested/d.yml': triggerYaml('d'),
      '.hub/triggers/README.md': 'not a trigger\n',
    });
    const found = await discover(dir);
    expect(found.triggers).toEqual([
      { kind: 'trigger', file: '.hub/triggers/a.yml', yaml: a },
      { kind: 'trigger', file: '.hub/triggers/b.yml', yaml: triggerYaml('b') },
    ]);
    expect(found.notes).toEqual(['.hub/triggers/c.yaml is not read: trigger files end in .yml; rename it to c.yml.']);
  });

  it('reads the legacy bundle: the hub file, direct workflows, and the partials they include, under the compiler paths', async () => {
    const review = crlf(workflowYaml('review', ['partials/review.md', 'review.md', 'partials/../outside.md']));
    writeTree(dir, {
      '.hub/hub.yml': HUB_YML,
      '.hub/workflows/review.yml': review,
      '.hub/workflows/lint.yml': workflowYaml('lint', ['partials/review.md', 'partials/lint/style.md']),
      '.hub/workflows/nested/x.yml': workflowYaml('x', []),
      '.hub/workflows/review.md': 'not under partials/\n',
      '.hub/workflows/partials/review.md': `${BOM}Review.  \r\n`,
      '.hub/workflows/partials/lint/style.md': 'Style.\n',
      '.hub/workflows/partials/unused.md': 'Unused.\n',
      '.hub/outside.md': 'outside\n',
    });
    const found = await discover(dir);
    expect(found.bundle).toEqual({
      kind: 'bundle',
      file: '.hub/hub.yml',
      dir: '.hub/',
      files: [
        { path: '.hub/hub.yml', content: HUB_YML },
        {
          path: '.hub/workflows/lint.yml',
          content: workflowYaml('lint', ['partials/review.md', 'partials/lint/style.md']),
        },
        { path: '.hub/workflows/review.yml', content: review },
        { path: '.hub/workflows/partials/lint/style.md', content: 'Style.\n' },
        { path: '.hub/workflows/partials/review.md', content: `${BOM}Review.  \r\n` },
      ],
      partialNames: [
        '.hub/workflows/partials/lint/style.md',
        '.hub/workflows/partials/review.md',
        '.hub/workflows/partials/unused.md',
      ],
    });
  });

  it('finds includes through aliases, once each; a document the compiler cannot read has none, its compile says why', () => {
    const aliased = `triggers:
  - name: a
    steps: &steps
      - id: s
        prompt: [ &item { include: shared.md }, *item, { include: own.md } ]
  - name: b
    steps: *steps
`;
    expect(includesOf(aliased, 'configuration')).toEqual(['shared.md', 'own.md']);
    expect(
      includesOf('steps:\n  - prompt:\n      - include: partials/a.md\n  - prompt: [ { include: b.md', 'workflow'),
    ).toEqual([]);
    expect(includesOf('steps: [ { prompt: [ { include: 7 }, { text: hi } ] } ]', 'workflow')).toEqual([]);
    // 2,000 triggers sharing 2,000 steps sharing 2,000 prompt items: 8e9 visits if walked naively.
    // The compiler's reading refuses it (limit.alias_expansion), so it has no includes.
    const many = (text: string) => `[ ${Array.from({ length: 2_000 }, () => text).join(', ')} ]`;
    const shared = `defs:\n  - &item { include: x.md }\n  - &prompt ${many('*item')}\n  - &step { prompt: *prompt }\n  - &steps ${many('*step')}\n  - &trigger { steps: *steps }\ntriggers: ${many('*trigger')}\n`;
    expect(includesOf(shared, 'configuration')).toEqual([]);
    // 10 triggers sharing 10 steps sharing 10 items, within the limits: each shared list is walked once.
    const some = (text: string) => `[ ${Array.from({ length: 10 }, () => text).join(', ')} ]`;
    const within = `defs:\n  - &item { include: x.md }\n  - &prompt ${some('*item')}\n  - &step { prompt: *prompt }\n  - &steps ${some('*step')}\n  - &trigger { steps: *steps }\ntriggers: ${some('*trigger')}\n`;
    expect(includesOf(within, 'configuration')).toEqual(['x.md']);
  });
});

describe('hub validate', () => {
  const repo = () => {
    writeTree(dir, {
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.hub/triggers/good.yml': triggerYaml('good'),
      '.hub/triggers/bad.yml': triggerYaml('bad').replace('filters:', 'filter:'),
      '.hub/config.yml': configurationYaml(['testing.md']),
      '.hub/partials/testing.md': 'Run {{ nope }}.\n',
      'src/deep/file.txt': 'x\n',
    });
    return dir;
  };

  it('finds the root from a subdirectory, checks everything found, and prints issues relative to the root', async () => {
    repo();
    const { code, stdout, stderr } = await hubIn(join(dir, 'src/deep'), ['validate']);
    expect(stderr).toBe('');
    expect(stdout.split('\n')).toEqual([
      expect.stringMatching(/^\.hub\/triggers\/bad\.yml:1:1: trigger\.allowlist_required \S/),
      expect.stringMatching(
        /^\.hub\/triggers\/bad\.yml:5:1: schema\.unknown_key Unknown key "filter"; did you mean "filters"\?/,
      ),
      expect.stringMatching(/^\.hub\/partials\/testing\.md:1:5: template\.unknown_placeholder \S/),
      'Checked 4 files: 3 issues in 2 of them.',
      '',
    ]);
    expect(code).toBe(1);
  });

  it('--dir names the root; --format json prints one object', async () => {
    repo();
    const { code, stdout } = await hubIn(tmpdir(), ['validate', '--dir', dir, '--format', 'json']);
    expect(code).toBe(1);
    const report = JSON.parse(stdout);
    expect(report.valid).toBe(false);
    expect(report.files).toEqual([
      { path: '.hub/triggers/bad.yml', kind: 'trigger', valid: false },
      { path: '.hub/triggers/good.yml', kind: 'trigger', valid: true },
      { path: '.hub/config.yml', kind: 'configuration', valid: true },
      { path: '.hub/partials/testing.md', kind: 'partial', valid: false },
    ]);
    expect(report.issues[2]).toEqual({
      file: '.hub/partials/testing.md',
      line: 1,
      column: 5,
      pointer: '/partials/0/content',
      code: 'template.unknown_placeholder',
      message: expect.stringContaining('{{ nope }}'),
      severity: 'error',
    });
  });

  it.each([
    [['.hub/triggers/good.yml'], 0, 'Checked 1 file: valid.'],
    [['.hub/triggers/bad.yml', '.hub/triggers/good.yml'], 1, 'Checked 2 files: 2 issues in 1 of them.'],
    [['.hub/partials/testing.md'], 1, 'Checked 2 files: 1 issue in 1 of them.'],
    [['.hub/config.yml', '.hub/partials/testing.md'], 1, 'Checked 2 files: 1 issue in 1 of them.'],
  ])('checks only the named files: %j', async (paths, exit, summary) => {
    repo();
    const { code, stdout } = await hubIn(dir, ['validate', ...paths]);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe(summary);
    expect(code).toBe(exit);
  });

  it('names a legacy bundle by its hub file or any workflow, and places its issues in its files', async () => {
    writeTree(dir, {
      'legacy/.hub/hub.yml': HUB_YML,
      'legacy/.hub/workflows/review.yml': workflowYaml('review', ['partials/review.md']),
      'legacy/.hub/workflows/partials/review.md': 'Review {{ inputs.pr }}.\n',
    });
    for (const path of ['legacy/.hub/hub.yml', 'legacy/.hub/workflows/review.yml']) {
      const { code, stdout } = await hubIn(dir, ['validate', '--dir', dir, path]);
      expect(stdout).toMatch(/^legacy\/\.hub\/workflows\/partials\/review\.md:1:8: template\.unknown_placeholder /);
      expect(stdout).toMatch(/\nChecked 3 files: 1 issue in 1 of them\.\n$/);
      expect(code).toBe(1);
    }
  });

  it('reports two trigger files with one name at the second one', async () => {
    writeTree(dir, {
      '.hub/triggers/a.yml': triggerYaml('same'),
      '.hub/triggers/b.yml': triggerYaml('same'),
      '.hub/triggers/c.yml': triggerYaml('other'),
    });
    const { code, stdout } = await hubIn(dir, ['validate']);
    expect(stdout).toMatch(
      /^\.hub\/triggers\/b\.yml:1:7: trigger\.duplicate_name The trigger "same" is also defined in \.hub\/triggers\/a\.yml/,
    );
    expect(code).toBe(1);
  });

  it('keeps positions right in a file with a byte order mark and CRLF line ends, and notes *.yaml files', async () => {
    writeTree(dir, {
      '.hub/triggers/a.yml': crlf(triggerYaml('a').replace('codex', 'Codex')),
      '.hub/triggers/b.yaml': triggerYaml('b'),
    });
    const { code, stdout, stderr } = await hubIn(dir, ['validate']);
    expect(stdout).toMatch(/^\.hub\/triggers\/a\.yml:10:15: schema\.name /);
    expect(stderr).toBe('note: .hub/triggers/b.yaml is not read: trigger files end in .yml; rename it to b.yml.\n');
    expect(code).toBe(1);
  });

  it('exits 0 for valid files, with warnings', async () => {
    writeTree(dir, { '.hub/triggers/a.yml': triggerYaml('a') });
    expect(await hubIn(dir, ['validate'])).toEqual({ code: 0, stdout: 'Checked 1 file: valid.\n', stderr: '' });
  });

  it.each([
    ['a missing file', ['validate', 'nope.yml'], /^hub: nope\.yml: no such file\.\n$/],
    ['a directory', ['validate', '.hub'], /^hub: \.hub is a directory: give files, or --dir \.hub /],
    [
      'a file that is not a hub file',
      ['validate', 'notes.md'],
      /^hub: notes\.md is not a hub file: give a trigger file \(\.yml\), a config\.yml, a hub\.yml, a partial or a workflow\.\n$/,
    ],
    ['a missing --dir', ['validate', '--dir', 'nope'], /^hub: --dir nope: no such directory\.\n$/],
    [
      'a file that is not UTF-8',
      ['validate', '.hub/triggers/utf16.yml'],
      /^hub: \.hub\/triggers\/utf16\.yml is not UTF-8 text\.\n$/,
    ],
    [
      'an unknown format',
      ['validate', '--format', 'yaml'],
      /^hub: --format yaml: give text, json or sarif\.\nRun "hub validate --help" for usage\.\n$/,
    ],
    ['an unknown option', ['validate', '--project', 'x'], /^hub: Unknown option '--project'/],
  ])('exits 2 for %s', async (_what, args, message) => {
    writeTree(dir, {
      '.hub/triggers/a.yml': triggerYaml('a'),
      '.hub/triggers/utf16.yml': Buffer.from([0xff, 0xfe, 0x6e, 0x00, 0x61, 0x00]),
      'notes.md': '# Notes\n',
    });
    const { code, stdout, stderr } = await hubIn(dir, args);
    expect(stderr).toMatch(message);
    expect(stdout).toBe('');
    expect(code).toBe(2);
  });

  it('suggests, for an include of no file, a partial of .hub/partials/ that no prompt includes, and sends only the included ones', async () => {
    writeTree(dir, {
      '.hub/config.yml': configurationYaml(['testin.md']),
      '.hub/partials/testing.md': 'Run the tests.\n',
      '.hub/partials/deploy/checklist.md': 'Check.\n',
    });
    const { code, stdout } = await hubIn(dir, ['validate', '--json']);
    const report = JSON.parse(stdout) as {
      issues: { file: string; code: string; line: number; column: number; message: string }[];
    };
    expect(report.issues.map(({ file, code, line, column }) => [file, code, line, column])).toEqual([
      ['.hub/config.yml', 'partial.missing', 19, 22],
    ]);
    expect(report.issues[0]?.message).toContain('did you mean "testing.md"?');
    expect(report.issues[0]?.message).not.toContain('request');
    expect(code).toBe(1);
    const found = await discover(dir);
    if (found.configuration === undefined) throw new Error('no configuration');
    expect(Object.keys(JSON.parse(requestFor(found.configuration, 'app').body) as object)).toEqual([
      'projectSlug',
      'yaml',
      'partials',
    ]);
  });

  it('exits 2 when there is nothing to validate', async () => {
    writeTree(dir, { '.git/HEAD': 'ref: refs/heads/main\n', '.hub/partials/unused.md': 'x\n' });
    const { code, stderr } = await hubIn(dir, ['validate']);
    expect(stderr).toBe(
      `hub: Nothing to validate in ${dir}: no .hub/triggers/*.yml, .hub/config.yml or .hub/hub.yml.\n`,
    );
    expect(code).toBe(2);
  });

  it.each([
    ['config', 'the configuration is .hub/config.yml'],
    ['hub', 'the legacy bundle is .hub/hub.yml'],
  ])('says, when only a .hub/%s.yaml is found, that it is not read and what to rename it to', async (name, what) => {
    writeTree(dir, { '.git/HEAD': 'ref: refs/heads/main\n', [`.hub/${name}.yaml`]: 'x: 1\n' });
    const { code, stdout, stderr } = await hubIn(dir, ['validate']);
    expect(stderr).toBe(
      `hub: Nothing to validate in ${dir}: no .hub/triggers/*.yml, .hub/config.yml or .hub/hub.yml. .hub/${name}.yaml is not read: ${what}; rename it to ${name}.yml.\n`,
    );
    expect(stdout).toBe('');
    expect(code).toBe(2);
  });

  it.each([
    ['.hub/trigger/a.yml', '.hub/trigger/ is not read: did you mean .hub/triggers/?'],
    ['.hub/confg.yml', '.hub/confg.yml is not read: did you mean .hub/config.yml?'],
    ['.hub/Hub.yml', '.hub/Hub.yml is not read: did you mean .hub/hub.yml?'],
  ])('says, when only %s is found, which name it misses', async (path, note) => {
    writeTree(dir, { '.git/HEAD': 'ref: refs/heads/main\n', [path]: triggerYaml('a') });
    const { code, stderr } = await hubIn(dir, ['validate']);
    expect(stderr).toBe(
      `hub: Nothing to validate in ${dir}: no .hub/triggers/*.yml, .hub/config.yml or .hub/hub.yml. ${note}\n`,
    );
    expect(code).toBe(2);
  });

  it('notes no near miss of a name that is there, nor what is far from every name', async () => {
    writeTree(dir, {
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.hub/triggers/a.yml': triggerYaml('a'),
      '.hub/trigger/b.yml': triggerYaml('b'),
      '.hub/README.md': 'About these files.\n',
      '.hub/scripts/x.sh': 'true\n',
    });
    expect(await hubIn(dir, ['validate'])).toMatchObject({ code: 0, stderr: '' });
  });

  it('notes a .hub/config.yaml beside the files it reads', async () => {
    writeTree(dir, {
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.hub/triggers/a.yml': triggerYaml('a'),
      '.hub/config.yaml': 'x: 1\n',
    });
    const { code, stderr } = await hubIn(dir, ['validate']);
    expect(stderr).toBe(
      'note: .hub/config.yaml is not read: the configuration is .hub/config.yml; rename it to config.yml.\n',
    );
    expect(code).toBe(0);
  });

  it('says, when nothing is found, which *.yaml files were not read and what to rename them to', async () => {
    writeTree(dir, { '.git/HEAD': 'ref: refs/heads/main\n', '.hub/triggers/n.yaml': triggerYaml('n') });
    const { code, stdout, stderr } = await hubIn(dir, ['validate']);
    expect(stderr).toMatch(
      /^hub: Nothing to validate in .*\.hub\/triggers\/n\.yaml is not read: trigger files end in \.yml; rename it to n\.yml\.\n$/,
    );
    expect(stdout).toBe('');
    expect(code).toBe(2);
  });

  const ancestors = (path: string): string[] => (dirname(path) === path ? [path] : [path, ...ancestors(dirname(path))]);
  it.skipIf(ancestors(tmpdir()).some((at) => existsSync(join(at, '.git')) || existsSync(join(at, '.hub'))))(
    'exits 2 outside any repository',
    async () => {
      mkdirSync(join(dir, 'plain'));
      const { code, stderr } = await hubIn(join(dir, 'plain'), ['validate']);
      expect(stderr).toMatch(
        /^hub: No repository here: neither .*plain nor a directory above it holds \.hub\/ or \.git; give --dir\.\n$/,
      );
      expect(code).toBe(2);
    },
  );

  it('--help describes discovery, the output, pre-commit use, an example and the exit codes', async () => {
    const { code, stdout } = await hubIn(dir, ['validate', '--help']);
    expect(code).toBe(0);
    for (const pattern of [
      /^Usage: hub validate \[paths\.\.\.\] \[--dir DIR\] \[--format text\|json\|sarif\] \[--json\]$/m,
      /file:line:column: code message/,
      /^ {2}\.hub\/triggers\/\*\.yml /m,
      /^ {2}\.hub\/config\.yml /m,
      /^ {2}\.hub\/hub\.yml /m,
      /byte order mark, CRLF/,
      /"hub-validate" \(\.pre-commit-hooks\.yaml/,
      /^Example:\n {2}hub validate$/m,
      /HUB_URL, HUB_API_KEY and HUB_CONFIG_DIR are not used/,
      /^Exit codes:\n {2}0 .*\n {2}1 +issues were found\n {2}2 +usage or configuration error.*\n +a file that cannot be read or is not UTF-8, nothing to validate$/m,
    ]) {
      expect(stdout).toMatch(pattern);
    }
  });
});
