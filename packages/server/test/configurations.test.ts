import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, enrollDaemon, setUp } from './support/client.js';
import { bundleFiles, configurationPartials, configurationYaml, exampleDaemons } from './support/documents.js';
import { databases, hubOn } from './support/hub.js';

describe.each(databases)('configurations on the %s database', (kind) => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  const shapeA = () => ({ projectSlug: ctx.project, yaml: configurationYaml, partials: configurationPartials });
  const shapeB = () => ({ projectSlug: ctx.project, files: bundleFiles });

  beforeAll(async () => {
    hub = await hubOn(kind);
    ctx = await setUp(hub);
    for (const daemon of exampleDaemons)
      expect((await enrollDaemon(hub, ctx.key, daemon.name, daemon.runtimes)).status).toBe(201);
  }, 120_000);
  afterAll(async () => hub?.close());

  it('validates shape A and B without recording anything', async () => {
    for (const body of [shapeA(), shapeB()]) {
      const answer = await call(hub, 'POST', '/api/v1/configurations/validate', { token: ctx.key, body });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ projectSlug: ctx.project, valid: true });
    }
    const [row] = await hub.sql`select count(*)::int as n from configuration_revisions`;
    expect(row?.n).toBe(0);
  });

  it('installs shape A and B as successive versions of one project, keeping the authored content', async () => {
    const first = await call(hub, 'POST', '/api/v1/configurations/install', { token: ctx.key, body: shapeA() });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      projectSlug: ctx.project,
      versionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      version: 1,
      active: true,
    });
    const second = await call(hub, 'POST', '/api/v1/configurations/install', { token: ctx.key, body: shapeB() });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ version: 2, active: true });
    const rows =
      await hub.sql`select version, active, shape, yaml, partials, files, api_key_id, model from configuration_revisions order by version`;
    expect(rows.map((row) => [row.version, row.active, row.shape])).toEqual([
      [1, false, 'configuration'],
      [2, true, 'bundle'],
    ]);
    expect(rows[0]?.yaml).toBe(configurationYaml);
    expect(rows[0]?.partials).toEqual(configurationPartials);
    expect(rows[1]?.files).toEqual(bundleFiles);
    expect(rows[1]?.api_key_id).toBe(ctx.keyId);
    // The compiled model, stored as a JSON object (not as a string of JSON).
    expect(rows[0]?.model).toMatchObject({
      shape: 'configuration',
      triggers: [expect.objectContaining({ name: 'fix-tests' })],
    });
    expect(rows[1]?.model).toMatchObject({ shape: 'bundle', triggers: expect.any(Array) });
  });

  it('gives ten concurrent installs the versions after the last, gapless, with exactly one active', async () => {
    const [before] = await hub.sql`select coalesce(max(version), 0)::int as v from configuration_revisions`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        call(hub, 'POST', '/api/v1/configurations/install', { token: ctx.key, body: shapeA() }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(201));
    const start = (before?.v as number) + 1;
    expect(answers.map((answer) => answer.body.version as number).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 10 }, (_, i) => start + i),
    );
    const [active] =
      await hub.sql`select count(*)::int as n, max(version)::int as v from configuration_revisions where active`;
    expect(active).toEqual({ n: 1, v: start + 9 });
  });

  it('keeps versions gapless across a failed install', async () => {
    const [before] = await hub.sql`select max(version)::int as v from configuration_revisions`;
    const bad = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: ctx.project, yaml: 'environments: [' },
    });
    expect(bad.status).toBe(422);
    const good = await call(hub, 'POST', '/api/v1/configurations/install', { token: ctx.key, body: shapeA() });
    expect(good.body.version).toBe((before?.v as number) + 1);
  });

  it.each([
    ['malformed JSON', { raw: '{"projectSlug": "app",' }],
    ['a list', { body: [] }],
    ['both yaml and files', { body: { projectSlug: 'app', yaml: 'a: 1', files: [] } }],
    ['neither yaml nor files', { body: { projectSlug: 'app' } }],
    ['no projectSlug', { body: { yaml: 'a: 1' } }],
    ['yaml of the wrong type', { body: { projectSlug: 'app', yaml: 42 } }],
    ['a partial without content', { body: { projectSlug: 'app', yaml: 'a: 1', partials: [{ path: 'a.md' }] } }],
    ['an unknown field', { body: { projectSlug: 'app', yaml: 'a: 1', extra: true } }],
    ['no body', {}],
  ])('answers 400 for %s, with field issues where there are fields', async (_case, request) => {
    const answer = await call(hub, 'POST', '/api/v1/configurations/validate', { token: ctx.key, ...request });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({
      status: 400,
      code: 'invalid_request',
      requestId: answer.headers.get('x-request-id'),
    });
  });

  it('reports body issues with pointers into the body', async () => {
    const answer = await call(hub, 'POST', '/api/v1/configurations/validate', {
      token: ctx.key,
      body: { projectSlug: 7, yaml: 'a: 1', partials: [{ path: 'a.md', content: 1 }], extra: 1 },
    });
    expect(answer.body.issues.map((issue: { pointer: string; code: string }) => [issue.code, issue.pointer])).toEqual([
      ['request.unknown_field', '/extra'],
      ['request.type', '/projectSlug'],
      ['request.type', '/partials/0/content'],
    ]);
  });

  it("answers 404 for an unknown, inactive or other organization's project", async () => {
    const other = await setUp(hub, { project: 'elsewhere' });
    await call(hub, 'POST', `/api/admin/v1/organizations/${ctx.org}/projects`, {
      token: hub.adminToken,
      body: { slug: 'old', name: 'Old' },
    });
    await call(hub, 'POST', `/api/admin/v1/organizations/${ctx.org}/projects/old/deactivate`, {
      token: hub.adminToken,
    });
    for (const projectSlug of ['nope', 'old', other.project]) {
      const answer = await call(hub, 'POST', '/api/v1/configurations/install', {
        token: ctx.key,
        body: { ...shapeA(), projectSlug },
      });
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe('project_not_found');
    }
  });

  it('answers 422 with positioned field issues for invalid content', async () => {
    const answer = await call(hub, 'POST', '/api/v1/configurations/validate', {
      token: ctx.key,
      body: {
        projectSlug: ctx.project,
        yaml: configurationYaml.replace('kind: daemon', 'kind: deamon'),
        partials: configurationPartials,
      },
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({
      code: 'invalid_configuration',
      issues: [{ code: 'schema.enum', pointer: '/environments/0/kind', line: 4, column: 11 }],
    });
  });

  it.each([
    ['path traversal in a partial', { partials: [{ path: '../../etc/passwd', content: 'x' }] }, 'path.unsafe'],
    [
      'an alias bomb',
      {
        yaml: `a: &a [x,x,x,x,x,x,x,x,x]\n${'bcdefghij'
          .split('')
          .map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefghij'[i]}`).join(',')}]`)
          .join('\n')}\n`,
      },
      'limit.alias_expansion',
    ],
  ])('answers 422 for %s', async (_case, change, code) => {
    const answer = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { ...shapeA(), ...change },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.issues.map((issue: { code: string }) => issue.code)).toContain(code);
  });

  it('answers 422 for path traversal in a legacy bundle', async () => {
    const answer = await call(hub, 'POST', '/api/v1/configurations/validate', {
      token: ctx.key,
      body: { projectSlug: ctx.project, files: [...bundleFiles, { path: '.hub/../../x.yml', content: 'x' }] },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.issues).toContainEqual(
      expect.objectContaining({ code: 'path.unsafe', pointer: '/files/3/path' }),
    );
  });

  it("resolves resources against the organization's enrolled daemons", async () => {
    const yaml = configurationYaml.replace('daemon: dev-box', 'daemon: dev-bx').replace('mode: edit', 'mode: review');
    const answer = await call(hub, 'POST', '/api/v1/configurations/validate', {
      token: ctx.key,
      body: { ...shapeA(), yaml },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.issues).toEqual([
      expect.objectContaining({
        code: 'resource.unknown_daemon',
        pointer: '/environments/0/daemon',
        message: expect.stringContaining('did you mean "dev-box"'),
      }),
    ]);
    const other = await setUp(hub);
    const elsewhere = await call(hub, 'POST', '/api/v1/configurations/validate', {
      token: other.key,
      body: { ...shapeA(), projectSlug: other.project },
    });
    expect(elsewhere.body.issues.map((issue: { code: string }) => issue.code)).toEqual(['resource.unknown_daemon']);
  });

  it('checks 401, then 403, then 400, then 404, then 422', async () => {
    const noScope = await setUp(hub, { scopes: ['projects:read'] });
    const broken = { raw: '{' };
    expect((await call(hub, 'POST', '/api/v1/configurations/install', broken)).status).toBe(401);
    expect((await call(hub, 'POST', '/api/v1/configurations/install', { token: noScope.key, ...broken })).status).toBe(
      403,
    );
    expect((await call(hub, 'POST', '/api/v1/configurations/install', { token: ctx.key, ...broken })).status).toBe(400);
    expect(
      (
        await call(hub, 'POST', '/api/v1/configurations/install', {
          token: ctx.key,
          body: { projectSlug: 'nope', yaml: '[' },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(hub, 'POST', '/api/v1/configurations/install', {
          token: ctx.key,
          body: { projectSlug: ctx.project, yaml: '[' },
        })
      ).status,
    ).toBe(422);
  });

  it('refuses a body over the size limit with 413, and a non-JSON body with 415', async () => {
    const huge = await call(hub, 'POST', '/api/v1/configurations/validate', {
      token: ctx.key,
      raw: `{"yaml":"${'a'.repeat(17 * 1024 * 1024)}"}`,
    });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe('payload_too_large');
    const text = await call(hub, 'POST', '/api/v1/configurations/validate', {
      token: ctx.key,
      raw: 'yaml: 1',
      contentType: 'text/yaml',
    });
    expect(text.status).toBe(415);
    expect(text.body.code).toBe('unsupported_media_type');
    // application/json only, the one type the OpenAPI document declares; parameters are fine.
    const raw = JSON.stringify({ projectSlug: ctx.project, yaml: configurationYaml, partials: configurationPartials });
    const suffixed = await call(hub, 'POST', '/api/v1/configurations/validate', {
      token: ctx.key,
      raw,
      contentType: 'application/vnd.hub+json',
    });
    expect(suffixed.status).toBe(415);
    const charset = await call(hub, 'POST', '/api/v1/configurations/validate', {
      token: ctx.key,
      raw,
      contentType: 'application/json; charset=utf-8',
    });
    expect(charset.status).toBe(200);
  });

  it('installs a 1,000,000-character configuration', async () => {
    const padding = `# ${'x'.repeat(1_000_000 - configurationYaml.length - 3)}\n`;
    const yaml = configurationYaml + padding;
    expect(yaml.length).toBe(1_000_000);
    const answer = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { ...shapeA(), yaml },
    });
    expect(answer.status).toBe(201);
    const over = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { ...shapeA(), yaml: `${yaml}#` },
    });
    expect(over.status).toBe(422);
    expect(over.body.issues).toEqual([expect.objectContaining({ code: 'limit.yaml_length', pointer: '/yaml' })]);
  });
});
