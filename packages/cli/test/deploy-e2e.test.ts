// `hub deploy` against a real hub (on the embedded PostgreSQL), as a child process in temporary
// repositories: each mode, contents stored byte for byte, all-or-nothing validation of trigger
// files, installs that fail midway, dry runs that send the install's exact body, and problems
// rendered for people. A recording proxy in front of the hub captures bodies and lets a test
// change the hub between two requests of one deploy.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, enrollDaemon, publicKey, setUp } from '../../server/test/support/client.js';
import { hubOn } from '../../server/test/support/hub.js';
import { configurationYaml, HUB_YML, triggerYaml, workflowYaml } from './support/documents.js';
import { recordingProxy, type RecordingProxy } from './support/recording-proxy.js';
import { hubIn, writeTree } from './support/repo.js';

const BOM = '\uFEFF';
/** What editors leave in files: a byte order mark, CRLF line ends, trailing spaces. */
const crlf = (text: string) => `${BOM}${text.replace(/\n/g, '  \r\n')}`;

let hub: Awaited<ReturnType<typeof hubOn>>;
let ctx: Awaited<ReturnType<typeof setUp>>;
let dir: string;
let proxy: RecordingProxy;
let triggerCount = 0;

beforeAll(async () => {
  hub = await hubOn('embedded');
  ctx = await setUp(hub);
  for (const [name, provider] of [
    ['build-box', 'codex'],
    ['dev-box', 'claude'],
    ['flaky-box', 'codex'],
  ] as const) {
    const enrolled = await enrollDaemon(hub, ctx.key, name, [{ provider }]);
    expect(enrolled.status, enrolled.text).toBe(201);
  }
}, 120_000);

afterAll(async () => hub?.close());

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hub-deploy-'));
  proxy = await recordingProxy(hub.url);
});

afterEach(async () => {
  await proxy.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `hub deploy args` in the repository, with its own config dir and the organization's key. */
const deploy = (args: string[], env: Record<string, string> = { HUB_API_KEY: ctx.key }) =>
  hubIn(dir, ['deploy', ...args], { HUB_CONFIG_DIR: join(dir, '.config'), ...env });
/** A trigger name no other test uses (triggers belong to the organization). */
const fresh = (label: string) => `${label}-${++triggerCount}`;

async function storedTrigger(name: string): Promise<{ version: number; yaml: string }[]> {
  return hub.sql<{ version: number; yaml: string }[]>`
    select r.version, r.yaml from trigger_revisions r join triggers t on t.id = r.trigger_id
    join organizations o on o.id = t.organization_id
    where o.slug = ${ctx.org} and t.name = ${name} order by r.version`;
}

async function activeRevision(
  project: string,
): Promise<{ version: number; shape: string; yaml: string | null; partials: unknown; files: unknown } | undefined> {
  const [row] = await hub.sql<
    { version: number; shape: string; yaml: string | null; partials: unknown; files: unknown }[]
  >`
    select r.version, r.shape, r.yaml, r.partials, r.files from configuration_revisions r
    join projects p on p.id = r.project_id join organizations o on o.id = p.organization_id
    where o.slug = ${ctx.org} and p.slug = ${project} and r.active`;
  return row;
}

const posts = (path: string) => proxy.requests.filter((request) => request.method === 'POST' && request.path === path);

describe('hub deploy: trigger files', () => {
  it('validates every file, then installs each in its own request, byte for byte, and reports name and version', async () => {
    const [a, b] = [fresh('alpha'), fresh('beta')];
    const files = {
      '.hub/triggers/a.yml': crlf(triggerYaml(a)),
      '.hub/triggers/b.yml': triggerYaml(b, { daemon: 'dev-box', provider: 'claude' }),
    };
    writeTree(dir, files);
    const first = await deploy([proxy.origin]);
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe(
      `.hub/triggers/a.yml: installed trigger ${a}, version 1\n.hub/triggers/b.yml: installed trigger ${b}, version 1\nInstalled 2 trigger files at ${proxy.origin}.\n`,
    );
    expect(first.code).toBe(0);
    expect(proxy.requests.map((request) => `${request.path} ${request.status}`)).toEqual([
      '/api/v1/triggers/validate 200',
      '/api/v1/triggers/validate 200',
      '/api/v1/triggers/install 201',
      '/api/v1/triggers/install 201',
    ]);
    expect(await storedTrigger(a)).toEqual([{ version: 1, yaml: files['.hub/triggers/a.yml'] }]);
    expect((await storedTrigger(a))[0]?.yaml.startsWith(`${BOM}name: ${a}  \r\n`)).toBe(true);

    const again = await deploy([hub.url]);
    expect(again.stdout).toMatch(new RegExp(`^\\.hub/triggers/a\\.yml: installed trigger ${a}, version 2$`, 'm'));
    expect(again.code).toBe(0);
  });

  it('installs none when any file is invalid, and prints the issues of each invalid file', async () => {
    const [good, bad, away] = [fresh('good'), fresh('bad'), fresh('away')];
    writeTree(dir, {
      '.hub/triggers/1-good.yml': triggerYaml(good),
      '.hub/triggers/2-bad.yml': triggerYaml(bad).replace('filters:', 'filter:'),
      '.hub/triggers/3-away.yml': triggerYaml(away, { daemon: 'nowhere-box' }),
    });
    const { code, stdout, stderr } = await deploy([proxy.origin]);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^\.hub\/triggers\/2-bad\.yml: invalid: .*\(HTTP 422 Unprocessable Entity, invalid_trigger\)$/m,
    );
    expect(stderr).toMatch(
      /^\.hub\/triggers\/2-bad\.yml:5:1: schema\.unknown_key Unknown key "filter"; did you mean "filters"\?/m,
    );
    // Only the hub knows which daemons are enrolled: this file passes "hub validate".
    expect(stderr).toMatch(/^\.hub\/triggers\/3-away\.yml:8:21: resource\.unknown_daemon /m);
    expect(stderr).toMatch(
      /^2 trigger files of 3 are invalid, so nothing was installed: every file must be valid before any is installed\.$/m,
    );
    expect(code).toBe(1);
    expect(posts('/api/v1/triggers/install')).toEqual([]);
    expect(await storedTrigger(good)).toEqual([]);

    // The same with --dry-run: the summary says what a deploy would do, not why nothing was installed.
    const dry = await deploy([proxy.origin, '--dry-run']);
    expect(dry.stderr).toMatch(
      /^2 trigger files of 3 are invalid\. Dry run: nothing was installed; a deploy of these files would install none of them until every one is valid\.$/m,
    );
    expect(dry.stderr).not.toMatch(/so nothing was installed/);
    expect(dry.code).toBe(1);
  });

  it('installs none when two files name the same trigger', async () => {
    const same = fresh('same');
    writeTree(dir, { '.hub/triggers/a.yml': triggerYaml(same), '.hub/triggers/b.yml': triggerYaml(same) });
    const { code, stderr } = await deploy([proxy.origin]);
    expect(stderr).toBe(
      `.hub/triggers/a.yml, .hub/triggers/b.yml define the same trigger ${same}.\nNothing was installed: each trigger file needs a name of its own, or the later install replaces the earlier.\n`,
    );
    expect(code).toBe(1);
    expect(posts('/api/v1/triggers/install')).toEqual([]);
  });

  it('goes on after an install that fails for its own file, and says that earlier installs stay', async () => {
    // The daemon of the second file is re-enrolled, with other runtimes, after validation and
    // before that file's install: the hub accepted the file a moment ago and refuses it now.
    const [one, two, three] = [fresh('one'), fresh('two'), fresh('three')];
    writeTree(dir, {
      '.hub/triggers/1.yml': triggerYaml(one),
      '.hub/triggers/2.yml': triggerYaml(two, { daemon: 'flaky-box' }),
      '.hub/triggers/3.yml': triggerYaml(three),
    });
    proxy.before = async (request) => {
      if (request.path !== '/api/v1/triggers/install' || posts('/api/v1/triggers/install').length !== 2) return;
      const token = await call(hub, 'POST', '/api/v1/daemons/enrollment-tokens', { token: ctx.key });
      const enrolled = await call(hub, 'POST', '/api/v1/daemons/enroll', {
        body: {
          token: token.body.token,
          name: 'flaky-box',
          publicKey: publicKey(),
          runtimes: [{ provider: 'claude' }],
          replace: true,
        },
      });
      expect(enrolled.status, enrolled.text).toBe(201);
    };
    const { code, stdout, stderr } = await deploy([proxy.origin]);
    expect(stdout).toBe(
      `.hub/triggers/1.yml: installed trigger ${one}, version 1\n.hub/triggers/3.yml: installed trigger ${three}, version 1\n`,
    );
    expect(stderr.split('\n')).toEqual([
      expect.stringMatching(
        /^\.hub\/triggers\/2\.yml: not installed: .*\(HTTP 422 Unprocessable Entity, invalid_trigger\)$/,
      ),
      expect.stringMatching(/^\.hub\/triggers\/2\.yml:10:15: resource\.unknown_runtime \S/),
      expect.stringMatching(/^Request id: [0-9a-f-]{36}$/),
      'Installed 2 of 3 trigger files: 1 failed. The 2 triggers installed above stay installed: a failed install does not undo the others.',
      '',
    ]);
    expect(code).toBe(1);
    expect(proxy.requests.map((request) => `${request.path} ${request.status}`).slice(3)).toEqual([
      '/api/v1/triggers/install 201',
      '/api/v1/triggers/install 422',
      '/api/v1/triggers/install 201',
    ]);
    expect((await storedTrigger(one)).length).toBe(1);
    expect(await storedTrigger(two)).toEqual([]);
    expect((await storedTrigger(three)).length).toBe(1);
  });

  it('stops at a failure that concerns the whole deploy (the key revoked midway) and names what was not attempted', async () => {
    const org = await setUp(hub);
    const enrolled = await enrollDaemon(hub, org.key, 'build-box', [{ provider: 'codex' }]);
    expect(enrolled.status, enrolled.text).toBe(201);
    const names = [fresh('first'), fresh('second'), fresh('third')];
    writeTree(
      dir,
      Object.fromEntries(names.map((name, index) => [`.hub/triggers/${index + 1}.yml`, triggerYaml(name)])),
    );
    proxy.before = async (request) => {
      if (request.path !== '/api/v1/triggers/install' || posts('/api/v1/triggers/install').length !== 2) return;
      const revoked = await call(hub, 'POST', `/api/admin/v1/organizations/${org.org}/api-keys/${org.keyId}/revoke`, {
        token: hub.adminToken,
      });
      expect(revoked.status, revoked.text).toBe(200);
    };
    const { code, stdout, stderr } = await deploy([proxy.origin], { HUB_API_KEY: org.key });
    expect(stdout).toBe(`.hub/triggers/1.yml: installed trigger ${names[0]}, version 1\n`);
    expect(stderr).toMatch(/^\.hub\/triggers\/2\.yml: not installed: .*\(HTTP 401 Unauthorized/m);
    expect(stderr).toMatch(/^\.hub\/triggers\/3\.yml: not attempted, after the failure above\.$/m);
    expect(stderr).toMatch(
      /^Installed 1 of 3 trigger files: 1 failed, 1 not attempted\. The 1 trigger installed above stays installed: a failed install does not undo the others\.\n$/m,
    );
    expect(stderr).not.toContain(org.key);
    expect(code).toBe(1);
    expect(posts('/api/v1/triggers/install').length).toBe(2);
  });

  it('--dry-run validates with the bodies an install sends, and installs nothing', async () => {
    const name = fresh('dry');
    writeTree(dir, { '.hub/triggers/a.yml': crlf(triggerYaml(name)) });
    const dry = await deploy([proxy.origin, '--dry-run']);
    expect(dry.stdout).toBe(
      `.hub/triggers/a.yml: valid (trigger ${name})\nDry run: 1 trigger file valid at ${proxy.origin}; nothing was installed.\n`,
    );
    expect(dry.code).toBe(0);
    expect(await storedTrigger(name)).toEqual([]);
    expect((await deploy([proxy.origin])).code).toBe(0);
    const [validated] = posts('/api/v1/triggers/validate');
    const installed = posts('/api/v1/triggers/install');
    expect(installed.length).toBe(1);
    expect(validated?.body.equals(installed[0]?.body as Buffer)).toBe(true);
    expect(validated?.body.equals(Buffer.from(JSON.stringify({ yaml: crlf(triggerYaml(name)) })))).toBe(true);
  });
});

describe('hub deploy --project', () => {
  it('installs the configuration (A) with exactly the partials it includes, byte for byte', async () => {
    const files = {
      '.hub/config.yml': crlf(configurationYaml(['testing.md', 'guides/style.md'], { daemon: 'dev-box' })),
      '.hub/partials/testing.md': `${BOM}Run the tests.  \r\nAll of them.\t\r\n`,
      '.hub/partials/guides/style.md': 'Keep the style.   \n\n',
      '.hub/partials/unused.md': 'Not included by anything.\n',
      '.hub/triggers/a.yml': triggerYaml(fresh('ignored')),
    };
    writeTree(dir, files);
    const { code, stdout, stderr } = await deploy([proxy.origin, '--project', ctx.project]);
    expect(stderr).toBe(
      [
        'note: .hub/triggers/*.yml are not deployed with --project: run "hub deploy" without it for them.',
        `Project ${ctx.project} (given with --project).`,
        `Remembered project ${ctx.project} in .hub/project.yml: the next "hub deploy" here needs no --project.`,
        '',
      ].join('\n'),
    );
    expect(stdout).toMatch(
      new RegExp(
        `^Installed \\.hub/config\\.yml with 2 partials in project ${ctx.project} at ${proxy.origin}: version \\d+ \\([0-9a-f-]{36}\\), now active\\.\\n$`,
      ),
    );
    expect(code).toBe(0);
    const revision = await activeRevision(ctx.project);
    expect(revision).toMatchObject({ shape: 'configuration', yaml: files['.hub/config.yml'] });
    expect(revision?.partials).toEqual([
      { path: 'guides/style.md', content: files['.hub/partials/guides/style.md'] },
      { path: 'testing.md', content: files['.hub/partials/testing.md'] },
    ]);
    expect(posts('/api/v1/configurations/install').map((request) => request.body.toString('utf8'))).toEqual([
      JSON.stringify({
        projectSlug: ctx.project,
        yaml: files['.hub/config.yml'],
        partials: [
          { path: 'guides/style.md', content: files['.hub/partials/guides/style.md'] },
          { path: 'testing.md', content: files['.hub/partials/testing.md'] },
        ],
      }),
    ]);
  });

  it('installs the legacy bundle: the hub file, the direct workflows and the included partials', async () => {
    const files = {
      '.hub/hub.yml': crlf(HUB_YML),
      '.hub/workflows/review.yml': workflowYaml('review', ['partials/review.md']),
      '.hub/workflows/partials/review.md': `${BOM}Review carefully.  \r\n`,
      '.hub/workflows/partials/unused.md': 'Not included.\n',
    };
    writeTree(dir, files);
    const { code, stdout, stderr } = await deploy([hub.url, '--project', ctx.project]);
    expect(stderr).toMatch(/^Project app \(given with --project\)\.\nRemembered project app in /);
    expect(stdout).toMatch(
      /^Installed \.hub\/hub\.yml with 1 workflow and 1 partial in project app at http:\/\/127\.0\.0\.1:\d+: version \d+ \([0-9a-f-]{36}\), now active\.\n$/,
    );
    expect(code).toBe(0);
    const revision = await activeRevision(ctx.project);
    expect(revision).toMatchObject({ shape: 'bundle', yaml: null, partials: null });
    expect(revision?.files).toEqual([
      { path: '.hub/hub.yml', content: files['.hub/hub.yml'] },
      { path: '.hub/workflows/review.yml', content: files['.hub/workflows/review.yml'] },
      { path: '.hub/workflows/partials/review.md', content: files['.hub/workflows/partials/review.md'] },
    ]);
  });

  it.each([
    [
      'the configuration (A)',
      {
        '.hub/config.yml': crlf(configurationYaml(['testing.md'], { daemon: 'dev-box' })),
        '.hub/partials/testing.md': `${BOM}Test.  \r\n`,
      },
    ],
    [
      'the legacy bundle',
      {
        '.hub/hub.yml': HUB_YML,
        '.hub/workflows/review.yml': crlf(workflowYaml('review', ['partials/review.md'])),
        '.hub/workflows/partials/review.md': 'Review.\n',
      },
    ],
  ])(
    '--dry-run sends the validate endpoint the exact body of the install, for %s, and installs nothing',
    async (_shape, files) => {
      writeTree(dir, files);
      const before = await activeRevision(ctx.project);
      const dry = await deploy([proxy.origin, '--project', ctx.project, '--dry-run']);
      expect(dry.stdout).toMatch(
        new RegExp(
          `^\\.hub/(config|hub)\\.yml with .* is valid for project ${ctx.project} at ${proxy.origin}\\.\\nDry run: nothing was installed\\.\\n$`,
        ),
      );
      expect(dry.code).toBe(0);
      expect((await activeRevision(ctx.project))?.version).toBe(before?.version);
      const installed = await deploy([proxy.origin, '--project', ctx.project]);
      expect(installed.code).toBe(0);
      const [validated] = posts('/api/v1/configurations/validate');
      const [install] = posts('/api/v1/configurations/install');
      expect(validated?.status).toBe(200);
      expect(install?.status).toBe(201);
      expect(validated?.body.equals(install?.body as Buffer)).toBe(true);
      expect(validated?.body.length).toBeGreaterThan(100);
    },
  );

  it("renders the hub's issues in the repository's files, a partial's included", async () => {
    writeTree(dir, {
      '.hub/config.yml': configurationYaml(['testing.md'], { daemon: 'nowhere-box' }),
      '.hub/partials/testing.md': 'Run the tests.\n',
    });
    const { code, stdout, stderr } = await deploy([proxy.origin, '--project', ctx.project]);
    expect(stdout).toBe('');
    expect(stderr.split('\n')).toEqual([
      'Project app (given with --project).',
      expect.stringMatching(
        /^hub: Installing \.hub\/config\.yml with 1 partial for project app failed: .*\(HTTP 422 Unprocessable Entity, invalid_configuration\)$/,
      ),
      expect.stringMatching(/^\.hub\/config\.yml:4:13: resource\.unknown_daemon \S/),
      expect.stringMatching(/^Request id: [0-9a-f-]{36}$/),
      '',
    ]);
    expect(code).toBe(1);

    writeTree(dir, { '.hub/partials/testing.md': 'Run the tests {{ nope }}.\n' });
    const partial = await deploy([proxy.origin, '--project', ctx.project, '--dry-run']);
    expect(partial.stderr).toMatch(/^hub: Validating \.hub\/config\.yml with 1 partial for project app failed: /m);
    expect(partial.stderr).toMatch(/^\.hub\/partials\/testing\.md:1:15: template\.unknown_placeholder \S/m);
    expect(partial.code).toBe(1);
  });

  it.each([
    [
      'an unknown project',
      ['--project', 'nope'],
      {},
      /^hub: Installing \.hub\/config\.yml with 1 partial for project nope failed: .*\(HTTP 404 Not Found, project_not_found\)$/m,
    ],
    [
      'a key the hub does not know',
      ['--project', 'app'],
      { HUB_API_KEY: 'hub_pk_0000000000000000000000000000bogus' },
      /\(HTTP 401 Unauthorized/,
    ],
  ])('renders the problem of %s and exits 1', async (_what, args, env, message) => {
    writeTree(dir, { '.hub/config.yml': configurationYaml(['testing.md']), '.hub/partials/testing.md': 'Test.\n' });
    const { code, stderr } = await deploy([hub.url, ...args], { HUB_API_KEY: ctx.key, ...env });
    expect(stderr).toMatch(message);
    expect(stderr).not.toContain('hub_pk_');
    expect(code).toBe(1);
  });
});

describe('hub deploy finds the project', () => {
  let solo: Awaited<ReturnType<typeof setUp>>;
  let duo: Awaited<ReturnType<typeof setUp>>;
  const configuration = { '.hub/config.yml': configurationYaml([], { daemon: 'dev-box' }) };
  const projectFile = () => join(dir, '.hub', 'project.yml');
  const installedIn = () =>
    posts('/api/v1/configurations/install').map((request) => JSON.parse(request.body.toString('utf8')).projectSlug);

  beforeAll(async () => {
    solo = await setUp(hub, { project: 'solo-app' });
    duo = await setUp(hub);
    const web = await call(hub, 'POST', `/api/admin/v1/organizations/${duo.org}/projects`, {
      token: hub.adminToken,
      body: { slug: 'web', name: 'Web' },
    });
    expect(web.status, web.text).toBe(201);
    for (const { key } of [solo, duo]) {
      const enrolled = await enrollDaemon(hub, key, 'dev-box', [{ provider: 'claude' }]);
      expect(enrolled.status, enrolled.text).toBe(201);
    }
  });

  it("without --project deploys the configuration to the organization's only project, and says so", async () => {
    writeTree(dir, configuration);
    const { code, stdout, stderr } = await deploy([proxy.origin], { HUB_API_KEY: solo.key });
    expect(stderr).toBe(`Project solo-app (the only project of ${solo.org}).\n`);
    expect(stdout).toMatch(/^Installed \.hub\/config\.yml in project solo-app at /);
    expect(code).toBe(0);
    expect(installedIn()).toEqual(['solo-app']);
    // Only a project given with --project is remembered.
    expect(existsSync(projectFile())).toBe(false);
  });

  it('with several projects and none chosen, lists them and both ways to choose, and installs nothing (exit 2)', async () => {
    writeTree(dir, configuration);
    const { code, stdout, stderr } = await deploy([proxy.origin], { HUB_API_KEY: duo.key });
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toBe(
      [
        `hub: .hub/config.yml is a project's configuration, and ${duo.org} has 2 projects:`,
        '  app  app',
        '  web  Web',
        'Choose one: give --project SLUG (the deploy then remembers it), or write "project: SLUG" in .hub/project.yml.',
        '',
      ].join('\n'),
    );
    expect(posts('/api/v1/configurations/install')).toEqual([]);
    expect(posts('/api/v1/configurations/validate')).toEqual([]);
  });

  it('remembers --project in .hub/project.yml after a successful deploy, so that the next needs no flag', async () => {
    writeTree(dir, configuration);
    const env = { HUB_API_KEY: duo.key };
    // A dry run and a failed deploy remember nothing.
    expect((await deploy([proxy.origin, '--project', 'web', '--dry-run'], env)).code).toBe(0);
    expect((await deploy([proxy.origin, '--project', 'nope'], env)).code).toBe(1);
    expect(existsSync(projectFile())).toBe(false);
    const given = await deploy([proxy.origin, '--project', 'web'], env);
    expect(given.code, given.stderr).toBe(0);
    expect(given.stderr).toBe(
      'Project web (given with --project).\nRemembered project web in .hub/project.yml: the next "hub deploy" here needs no --project.\n',
    );
    expect(readFileSync(projectFile(), 'utf8')).toMatch(
      /^# The hub project that "hub deploy" installs [^]*\nproject: web\n$/,
    );
    const next = await deploy([proxy.origin], env);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toBe('Project web (named in .hub/project.yml).\n');
    expect(installedIn()).toEqual(['nope', 'web', 'web']);
  });

  it('takes the project a project: line names; --project wins, and replaces the line, keeping the rest of the file', async () => {
    writeTree(dir, { ...configuration, '.hub/project.yml': '# Ours.\nproject: app\n' });
    const env = { HUB_API_KEY: duo.key };
    const named = await deploy([proxy.origin], env);
    expect(named.code, named.stderr).toBe(0);
    expect(named.stderr).toBe('Project app (named in .hub/project.yml).\n');
    const given = await deploy([proxy.origin, '--project', 'web'], env);
    expect(given.code, given.stderr).toBe(0);
    expect(given.stderr).toContain('Remembered project web in .hub/project.yml instead of app:');
    expect(readFileSync(projectFile(), 'utf8')).toBe('# Ours.\nproject: web\n');
    expect(installedIn()).toEqual(['app', 'web']);
  });
});

describe('hub deploy usage', () => {
  it.each([
    ['--project without a slug', {}, ['--project'], /^hub: Option '--project <value>' argument missing/],
    [
      'an empty --project',
      {},
      ['--project', ' '],
      /^hub: --project needs a project slug\.\nRun "hub deploy --help" for usage\.\n$/,
    ],
    ['two origins', {}, ['http://a.example', 'http://b.example'], /^hub: Unexpected argument "http:\/\/b\.example"\./],
    ['an unknown option', {}, ['--format', 'json'], /^hub: Unknown option '--format'/],
    [
      'nothing to deploy',
      { '.git/HEAD': 'x\n' },
      [],
      /^hub: Nothing to deploy in .*: no \.hub\/triggers\/\*\.yml \(and, for --project, no \.hub\/config\.yml or \.hub\/hub\.yml\)\.\n$/,
    ],
    [
      'only a *.yaml trigger',
      { '.hub/triggers/n.yaml': 'x: 1\n' },
      [],
      /^hub: Nothing to deploy in .*: no \.hub\/triggers\/\*\.yml .* \.hub\/triggers\/n\.yaml is not read: trigger files end in \.yml; rename it to n\.yml\.\n$/,
    ],
    [
      'a .hub/project.yml that is not one',
      { '.hub/config.yml': 'x: 1\n', '.hub/project.yml': 'projet: app\n' },
      [],
      /^hub: \.hub\/project\.yml has the unknown key "projet": it holds one line, "project: SLUG" \(or give --project SLUG\)\.\n$/,
    ],
    [
      'a .hub/project.yml naming no slug',
      { '.hub/config.yml': 'x: 1\n', '.hub/project.yml': 'project: My App\n' },
      [],
      /^hub: \.hub\/project\.yml names "My App", which is not a project slug/,
    ],
    [
      '--project with only trigger files',
      { '.hub/triggers/a.yml': 'x: 1\n' },
      ['--project', 'app'],
      /^hub: Nothing to deploy to project app: .* The trigger files in \.hub\/triggers\/ belong to the organization/,
    ],
    [
      '--project with both configurations',
      { '.hub/config.yml': 'x: 1\n', '.hub/hub.yml': 'x: 1\n' },
      ['--project', 'app'],
      /^hub: Both \.hub\/config\.yml and \.hub\/hub\.yml are here/,
    ],
    [
      'a bad origin',
      { '.hub/triggers/a.yml': 'x: 1\n' },
      ['ftp://hub.example'],
      /^hub: "ftp:\/\/hub\.example" is not a hub URL/,
    ],
  ])('%s exits 2 before any request', async (_what, files, args, message) => {
    writeTree(dir, files);
    const { code, stdout, stderr } = await deploy([...args], { HUB_URL: proxy.origin, HUB_API_KEY: ctx.key });
    expect(stderr).toMatch(message);
    expect(stdout).toBe('');
    expect(code).toBe(2);
    expect(proxy.requests).toEqual([]);
  });

  it('exits 2 without a credential for the hub, before any request', async () => {
    writeTree(dir, { '.hub/triggers/a.yml': triggerYaml('a') });
    const { code, stderr } = await deploy([proxy.origin], {});
    expect(stderr).toMatch(
      /^hub: No credential for http:\/\/127\.0\.0\.1:\d+: run "hub login http:\/\/127\.0\.0\.1:\d+", or set HUB_API_KEY/,
    );
    expect(code).toBe(2);
    expect(proxy.requests).toEqual([]);
  });

  it('exits 1 when the hub cannot be reached, having installed nothing', async () => {
    writeTree(dir, { '.hub/triggers/a.yml': triggerYaml('a') });
    await proxy.close();
    const { code, stderr } = await deploy([proxy.origin]);
    expect(stderr).toMatch(/^hub: could not reach the hub at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED\n$/);
    expect(code).toBe(1);
  });

  it('--help describes the modes, discovery, options, environment, an example and the exit codes', async () => {
    const { code, stdout } = await hubIn(dir, ['deploy', '--help']);
    expect(code).toBe(0);
    for (const pattern of [
      /^Usage: hub deploy \[origin\] \[--project SLUG\] \[--dry-run\] \[--json\] \[--api-key KEY\] \[--dir DIR\]$/m,
      /if\s+any is invalid, none is installed/,
      /A failed install does not undo the installs before it/,
      /exactly the body\s+an install would send/,
      /^ {2}--project SLUG /m,
      /^ {2}--dry-run /m,
      /^ {2}--api-key KEY /m,
      /^ {2}--dir DIR /m,
      /^ {2}\.hub\/triggers\/\*\.yml /m,
      /^ {2}HUB_URL /m,
      /^ {2}HUB_API_KEY /m,
      /^ {2}HUB_CONFIG_DIR /m,
      /^Example:\n {2}HUB_API_KEY=hub_pk_\.\.\. hub deploy /m,
      /^Exit codes:\n {2}0 .*\n {2}1 .*\n {2}2 +usage or configuration error/m,
      /The project is, in this order:\n {2}--project SLUG .*\n.*\n {2}\.hub\/project\.yml .*\n {2}the only project /m,
    ]) {
      expect(stdout).toMatch(pattern);
    }
  });
});
