// The CLI reads only the repository (issue 24, finding 8): a symbolic link, or a linked directory
// on the way, that resolves outside the repository root (or nowhere) is refused by hub validate,
// hub deploy (which then sends nothing: the secret is in no revision at a real hub) and hub lsp
// alike, with an issue naming the link and where it leads; links inside the repository still work.
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { enrollDaemon, setUp } from '../../server/test/support/client.js';
import { hubOn } from '../../server/test/support/hub.js';
import { discoveryIssueCodes } from '../src/boundary.js';
import { configurationYaml, HUB_YML, triggerYaml, workflowYaml } from './support/documents.js';
import { startLsp, uriOf, type LspClient } from './support/lsp.js';
import { hubIn, writeTree } from './support/repo.js';

let base: string;
/** The repository, and beside it (outside) a directory holding a secret. */
let repo: string;
let outside: string;
let secret: string;
const MARKER = `outside-secret-${randomUUID()}`;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'hub-outside-'));
  chmodSync(base, 0o755);
  repo = join(base, 'repo');
  outside = join(base, 'elsewhere');
  mkdirSync(repo);
  mkdirSync(join(outside, 'partials'), { recursive: true });
  secret = join(outside, 'secret.txt');
  writeFileSync(secret, `${MARKER}\n`);
  writeFileSync(join(outside, 'partials', 'testing.md'), `${MARKER}\n`);
  mkdirSync(join(outside, 'triggers'));
  writeFileSync(join(outside, 'triggers', 'leak.yml'), triggerYaml('leak').replace('Triage new issues.', MARKER));
  mkdirSync(join(repo, '.git'));
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

const link = (target: string, path: string) => {
  mkdirSync(join(repo, path, '..'), { recursive: true });
  symlinkSync(target, join(repo, path));
};
const validate = (args: string[] = []) => hubIn(repo, ['validate', ...args]);
/** The 1-based line and column of `include: <name>`'s value in `yaml`. */
const includeAt = (yaml: string, name: string) => {
  const index = yaml.split('\n').findIndex((line) => line.includes(`include: ${name}`));
  return { line: index + 1, column: (yaml.split('\n')[index] ?? '').indexOf(name) + 1 };
};

describe('hub validate', () => {
  it('refuses a partial that links outside, at its include, naming the link and its target, without reading it', async () => {
    const yaml = configurationYaml(['testing.md']);
    writeTree(repo, { '.hub/config.yml': yaml });
    link(secret, '.hub/partials/testing.md');
    const { code, stdout, stderr } = await validate(['--json']);
    expect(code).toBe(1);
    expect(stdout + stderr).not.toContain(MARKER);
    const { issues } = JSON.parse(stdout) as { issues: Record<string, unknown>[] };
    expect(issues).toEqual([
      expect.objectContaining({
        file: '.hub/config.yml',
        code: 'discovery.outside_repository',
        ...includeAt(yaml, 'testing.md'),
      }),
    ]);
    expect(issues[0]?.message).toContain('.hub/partials/testing.md');
    expect(issues[0]?.message).toContain(secret);
  });

  it('refuses a linked partials directory, a linked triggers directory and a linked trigger file that lead outside', async () => {
    writeTree(repo, { '.hub/config.yml': configurationYaml(['testing.md']), '.hub/hub.yml': HUB_YML });
    link(join(outside, 'partials'), '.hub/partials');
    link(join(outside, 'triggers'), '.hub/workflows');
    const partials = await validate();
    expect(partials.code).toBe(1);
    expect(partials.stdout + partials.stderr).not.toContain(MARKER);
    expect(partials.stdout).toMatch(
      /^\.hub\/config\.yml:\d+:\d+: discovery\.outside_repository \.hub\/partials\b.*elsewhere\/partials/m,
    );
    expect(partials.stdout).toMatch(/^\.hub\/workflows: discovery\.outside_repository .*elsewhere\/triggers/m);

    rmSync(join(repo, '.hub'), { recursive: true });
    link(join(outside, 'triggers'), '.hub/triggers');
    const triggers = await validate();
    expect(triggers.code).toBe(1);
    expect(triggers.stdout).toMatch(/^\.hub\/triggers: discovery\.outside_repository .*elsewhere\/triggers/m);

    rmSync(join(repo, '.hub'), { recursive: true });
    link(secret, '.hub/triggers/nightly.yml');
    const file = await validate();
    expect(file.code).toBe(1);
    expect(file.stdout).toContain(
      `.hub/triggers/nightly.yml: discovery.outside_repository .hub/triggers/nightly.yml resolves to ${secret}`,
    );
    expect(file.stdout + file.stderr).not.toContain(MARKER);
  });

  it('reports a broken link instead of leaving the file out', async () => {
    writeTree(repo, { '.hub/config.yml': configurationYaml(['testing.md']) });
    link(join(base, 'gone.md'), '.hub/partials/testing.md');
    const { code, stdout } = await validate();
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /^\.hub\/config\.yml:\d+:\d+: discovery\.broken_link \.hub\/partials\/testing\.md .*gone\.md/m,
    );
  });

  it('refuses a named file that links outside, and never reads an include that climbs out with ..', async () => {
    link(secret, '.hub/triggers/nightly.yml');
    const named = await validate(['.hub/triggers/nightly.yml']);
    expect(named.code).toBe(1);
    expect(named.stdout).toContain('.hub/triggers/nightly.yml: discovery.outside_repository');
    expect(named.stdout + named.stderr).not.toContain(MARKER);
    rmSync(join(repo, '.hub'), { recursive: true });
    writeTree(repo, { '.hub/config.yml': configurationYaml(['../../elsewhere/secret.txt']) });
    const climbing = await validate();
    expect(climbing.code).toBe(1);
    expect(climbing.stdout).toMatch(/^\.hub\/config\.yml:\d+:\d+: path\.unsafe /m);
    expect(climbing.stdout + climbing.stderr).not.toContain(MARKER);
  });

  it('refuses the config.yml that a named partial brings along when it links outside', async () => {
    writeTree(repo, { '.hub/partials/a.md': 'Run the tests.\n' });
    writeFileSync(secret, `${MARKER}: 1\n`);
    link(secret, '.hub/config.yml');
    const named = await validate(['.hub/partials/a.md']);
    expect(named.code).toBe(1);
    expect(named.stdout).toContain('.hub/config.yml: discovery.outside_repository');
    expect(named.stdout + named.stderr).not.toContain(MARKER);
  });

  it('reads links that stay inside the repository, files and directories alike', async () => {
    writeTree(repo, {
      '.hub/config.yml': configurationYaml(['testing.md', 'shared/style.md']),
      'docs/testing.md': 'Run the tests.\n',
      'docs/shared/style.md': 'Be brief.\n',
      'triggers/nightly.yml': triggerYaml('nightly'),
    });
    link('../../docs/testing.md', '.hub/partials/testing.md');
    link(join(repo, 'docs', 'shared'), '.hub/partials/shared');
    link('../triggers', '.hub/triggers');
    const { code, stdout, stderr } = await validate();
    expect(stderr).toBe('');
    expect(stdout).toBe('Checked 4 files: valid.\n');
    expect(code).toBe(0);
  });

  it('names, for every code of discovery, its section in docs/issue-codes.md', () => {
    const doc = readFileSync(new URL('../../../docs/issue-codes.md', import.meta.url), 'utf8');
    const documented = [...doc.matchAll(/^### `(discovery\.[a-z_]+)`$/gm)].map((match) => match[1]);
    expect(documented.sort()).toEqual(Object.keys(discoveryIssueCodes).sort());
  });
});

describe('hub deploy, against a real hub', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let ctx: Awaited<ReturnType<typeof setUp>>;

  beforeAll(async () => {
    hub = await hubOn('embedded');
    ctx = await setUp(hub);
    const enrolled = await enrollDaemon(hub, ctx.key, 'dev-box', [{ provider: 'claude' }]);
    expect(enrolled.status, enrolled.text).toBe(201);
  }, 120_000);

  afterAll(async () => hub?.close());

  const deploy = (args: string[]) =>
    hubIn(repo, ['deploy', hub.url, ...args], { HUB_CONFIG_DIR: join(base, '.config'), HUB_API_KEY: ctx.key });
  /** Every stored revision as text: the marker must be in none. */
  const revisions = async () => {
    const rows = await hub.sql<{ text: string }[]>`
      select row_to_json(r)::text as text from configuration_revisions r
      union all select row_to_json(t)::text from trigger_revisions t`;
    return rows.map((row) => row.text).join('\n');
  };

  it('refuses a partial that links outside and sends nothing: the secret is in no revision', async () => {
    writeTree(repo, { '.hub/config.yml': configurationYaml(['testing.md']) });
    link(secret, '.hub/partials/testing.md');
    const { code, stdout, stderr } = await deploy(['--project', ctx.project]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^\.hub\/config\.yml:\d+:\d+: discovery\.outside_repository \.hub\/partials\/testing\.md /m);
    expect(stderr).toContain(secret);
    expect(stderr).toContain('Nothing was deployed');
    expect(await revisions()).not.toContain(MARKER);
  });

  it('refuses trigger files under a linked directory, and a legacy bundle whose partials lead outside', async () => {
    link(join(outside, 'triggers'), '.hub/triggers');
    const triggers = await deploy([]);
    expect(triggers.code).toBe(1);
    expect(triggers.stderr).toContain('discovery.outside_repository .hub/triggers resolves to');
    rmSync(join(repo, '.hub'), { recursive: true });
    writeTree(repo, {
      '.hub/hub.yml': HUB_YML,
      '.hub/workflows/review.yml': workflowYaml('review', ['partials/testing.md']),
    });
    link(join(outside, 'partials'), '.hub/workflows/partials');
    const bundle = await deploy(['--project', ctx.project, '--json']);
    expect(bundle.code).toBe(1);
    expect(JSON.parse(bundle.stdout)).toMatchObject({
      ok: false,
      files: [],
      issues: [{ file: '.hub/workflows/review.yml', code: 'discovery.outside_repository' }],
    });
    expect(await revisions()).not.toContain(MARKER);
  });

  it('deploys a partial linked inside the repository as the file it leads to', async () => {
    writeTree(repo, { '.hub/config.yml': configurationYaml(['testing.md']), 'docs/testing.md': 'Run them all.\n' });
    link('../../docs/testing.md', '.hub/partials/testing.md');
    const { code, stderr } = await deploy(['--project', ctx.project]);
    expect(stderr).toMatch(/^Project app \(given with --project\)\.\nRemembered project app in \.hub\/project\.yml/);
    expect(code).toBe(0);
    const [row] = await hub.sql<{ partials: unknown }[]>`
      select r.partials from configuration_revisions r join projects p on p.id = r.project_id
      where p.slug = ${ctx.project} and r.active`;
    expect(row?.partials).toEqual([{ path: 'testing.md', content: 'Run them all.\n' }]);
  });
});

describe('hub lsp', () => {
  let client: LspClient | undefined;
  afterEach(() => {
    if (client !== undefined && client.child.exitCode === null) client.child.kill();
    client = undefined;
  });

  it('publishes the refusal at the include, and nothing once the link leads inside', async () => {
    const yaml = configurationYaml(['testing.md']);
    writeTree(repo, { '.hub/config.yml': yaml, 'docs/testing.md': 'Inside.\n' });
    link(secret, '.hub/partials/testing.md');
    client = await startLsp(repo);
    const uri = uriOf(join(repo, '.hub/config.yml'));
    await client.open(uri, yaml);
    const [diagnostic] = await client.diagnostics(uri, (list) => list.length === 1);
    const { line, column } = includeAt(yaml, 'testing.md');
    expect(diagnostic).toMatchObject({
      code: 'discovery.outside_repository',
      range: { start: { line: line - 1, character: column - 1 } },
    });
    expect(diagnostic?.message).toContain('.hub/partials/testing.md');
    expect(diagnostic?.message).toContain(secret);
    expect(JSON.stringify(client.published)).not.toContain(MARKER);

    rmSync(join(repo, '.hub/partials/testing.md'));
    link('../../docs/testing.md', '.hub/partials/testing.md');
    await client.change(uri, 2, `${yaml}\n`);
    await client.diagnostics(uri, (list) => list.length === 0);
  });

  it('publishes a linked trigger file that leads outside on the link itself', async () => {
    writeTree(repo, { '.hub/triggers/ok.yml': triggerYaml('ok') });
    link(secret, '.hub/triggers/leak.yml');
    client = await startLsp(repo);
    const uri = uriOf(join(repo, '.hub/triggers/ok.yml'));
    await client.open(uri, triggerYaml('ok'));
    const leak = uriOf(join(repo, '.hub/triggers/leak.yml'));
    const [diagnostic] = await client.diagnostics(leak, (list) => list.length === 1);
    expect(diagnostic).toMatchObject({ code: 'discovery.outside_repository' });
    expect(diagnostic?.message).toContain(secret);
    expect(JSON.stringify(client.published)).not.toContain(MARKER);
  });
});
