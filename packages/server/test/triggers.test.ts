import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, enrollDaemon, expectProblem, setUp } from './support/client.js';
import { exampleDaemons, triggerYaml } from './support/documents.js';
import { databases, hubOn } from './support/hub.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const VALIDATE = '/api/v1/triggers/validate';
const INSTALL = '/api/v1/triggers/install';

/** The example trigger under another name. */
const named = (name: string) => triggerYaml.replace('name: nightly-triage', `name: ${name}`);

/** 1-based line and column of the first occurrence of `needle` in `text`. */
function positionOf(text: string, needle: string): { line: number; column: number } {
  const index = text.indexOf(needle);
  if (index < 0) throw new Error(`${needle} is not in the text`);
  const before = text.slice(0, index);
  return { line: before.split('\n').length, column: index - before.lastIndexOf('\n') };
}

describe.each(databases)('triggers on the %s database', (kind) => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let ctx: Awaited<ReturnType<typeof setUp>>;

  /** A fresh organization whose daemons are the ones the examples name. */
  const organization = async (options: Parameters<typeof setUp>[1] = {}) => {
    const org = await setUp(hub, options);
    for (const daemon of exampleDaemons) {
      const enrolled = await enrollDaemon(hub, org.key, daemon.name, daemon.runtimes);
      if (enrolled.status !== 201) throw new Error(`enrollment failed: ${enrolled.status} ${enrolled.text}`);
    }
    const [row] = await hub.sql`select id from organizations where slug = ${org.org}`;
    return { ...org, organizationId: row?.id as string };
  };
  const counts = async (organizationId: string) => {
    const [row] = await hub.sql`
      select (select count(*)::int from triggers where organization_id = ${organizationId}) as triggers,
             (select count(*)::int from trigger_revisions r join triggers t on t.id = r.trigger_id where t.organization_id = ${organizationId}) as revisions`;
    return row as { triggers: number; revisions: number };
  };

  beforeAll(async () => {
    hub = await hubOn(kind);
    ctx = await organization();
  }, 120_000);
  afterAll(async () => hub?.close());

  it('validates a trigger: 200 { name, valid: true }, and records nothing', async () => {
    const org = await organization();
    const answer = await call(hub, 'POST', VALIDATE, { token: org.key, body: { yaml: triggerYaml } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.body).toEqual({ name: 'nightly-triage', valid: true });
    expect(await counts(org.organizationId)).toEqual({ triggers: 0, revisions: 0 });
  });

  it('installs a trigger: 201 { triggerId, name, revisionId, version: 1, active: true }, keeping the authored YAML and the key', async () => {
    const org = await organization();
    const answer = await call(hub, 'POST', INSTALL, { token: org.key, body: { yaml: triggerYaml } });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.body).toEqual({
      triggerId: expect.stringMatching(UUID),
      name: 'nightly-triage',
      revisionId: expect.stringMatching(UUID),
      version: 1,
      active: true,
    });
    const rows = await hub.sql`
      select t.id as trigger_id, t.organization_id, t.name, r.id as revision_id, r.version, r.active, r.yaml, r.api_key_id
      from triggers t join trigger_revisions r on r.trigger_id = t.id where t.organization_id = ${org.organizationId}`;
    expect(rows).toEqual([
      {
        trigger_id: answer.body.triggerId,
        organization_id: org.organizationId,
        name: 'nightly-triage',
        revision_id: answer.body.revisionId,
        version: 1,
        active: true,
        yaml: triggerYaml,
        api_key_id: org.keyId,
      },
    ]);
  });

  it('updates the trigger of the same name: same triggerId, version 2, only the newest revision active', async () => {
    const org = await organization();
    const first = await call(hub, 'POST', INSTALL, { token: org.key, body: { yaml: triggerYaml } });
    const changed = triggerYaml.replace('Triage new issues.', 'Triage every new issue.');
    const second = await call(hub, 'POST', INSTALL, { token: org.key, body: { yaml: changed } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual({
      triggerId: first.body.triggerId,
      name: 'nightly-triage',
      revisionId: expect.stringMatching(UUID),
      version: 2,
      active: true,
    });
    expect(second.body.revisionId).not.toBe(first.body.revisionId);
    const revisions =
      await hub.sql`select id, version, active, yaml from trigger_revisions where trigger_id = ${first.body.triggerId as string} order by version`;
    expect(revisions.map((row) => [row.id, row.version, row.active, row.yaml])).toEqual([
      [first.body.revisionId, 1, false, triggerYaml],
      [second.body.revisionId, 2, true, changed],
    ]);
    expect(await counts(org.organizationId)).toEqual({ triggers: 1, revisions: 2 });
  });

  it('creates another trigger for another name, each with its own versions', async () => {
    const org = await organization();
    const first = await call(hub, 'POST', INSTALL, { token: org.key, body: { yaml: named('triage-a') } });
    const second = await call(hub, 'POST', INSTALL, { token: org.key, body: { yaml: named('triage-b') } });
    expect(first.body).toMatchObject({ name: 'triage-a', version: 1, active: true });
    expect(second.body).toMatchObject({ name: 'triage-b', version: 1, active: true });
    expect(second.body.triggerId).not.toBe(first.body.triggerId);
    const active = await hub.sql`
      select t.name, r.version from trigger_revisions r join triggers t on t.id = r.trigger_id
      where t.organization_id = ${org.organizationId} and r.active order by t.name`;
    expect(active.map((row) => [row.name, row.version])).toEqual([
      ['triage-a', 1],
      ['triage-b', 1],
    ]);
  });

  it('gives ten concurrent installs of one name versions 1 to 10 of one trigger, with exactly one active revision', async () => {
    const org = await organization();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => call(hub, 'POST', INSTALL, { token: org.key, body: { yaml: triggerYaml } })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((answer) => answer.body.triggerId)).size).toBe(1);
    expect(new Set(answers.map((answer) => answer.body.revisionId)).size).toBe(10);
    expect(answers.map((answer) => answer.body.version as number).sort((a, b) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
    const [active] = await hub.sql`
      select count(*)::int as n, max(version)::int as v from trigger_revisions where trigger_id = ${answers[0]?.body.triggerId as string} and active`;
    expect(active).toEqual({ n: 1, v: 10 });
    expect(await counts(org.organizationId)).toEqual({ triggers: 1, revisions: 10 });
  });

  it('keeps a trigger of another organization with the same name separate', async () => {
    const mine = await organization();
    const theirs = await organization();
    const a = await call(hub, 'POST', INSTALL, { token: mine.key, body: { yaml: triggerYaml } });
    const b = await call(hub, 'POST', INSTALL, { token: theirs.key, body: { yaml: triggerYaml } });
    const a2 = await call(hub, 'POST', INSTALL, { token: mine.key, body: { yaml: triggerYaml } });
    expect(a.body).toMatchObject({ name: 'nightly-triage', version: 1 });
    expect(b.body).toMatchObject({ name: 'nightly-triage', version: 1 });
    expect(b.body.triggerId).not.toBe(a.body.triggerId);
    expect(a2.body).toMatchObject({ triggerId: a.body.triggerId, version: 2 });
    expect(await counts(mine.organizationId)).toEqual({ triggers: 1, revisions: 2 });
    expect(await counts(theirs.organizationId)).toEqual({ triggers: 1, revisions: 1 });
    const [theirsActive] =
      await hub.sql`select version, active from trigger_revisions where trigger_id = ${b.body.triggerId as string}`;
    expect(theirsActive).toEqual({ version: 1, active: true });
  });

  describe.each([VALIDATE, INSTALL])('%s', (path) => {
    it.each([
      ['malformed JSON', { raw: '{"yaml": "name: x",' }, undefined],
      ['a list', { body: [] }, ''],
      ['a string', { body: 'name: x' }, ''],
      ['null', { raw: 'null' }, ''],
      ['an empty object', { body: {} }, '/yaml'],
      ['yaml of the wrong type', { body: { yaml: 42 } }, '/yaml'],
      ['yaml null', { body: { yaml: null } }, '/yaml'],
      ['an unknown field', { body: { yaml: 'name: x', name: 'x' } }, '/name'],
      ['shape A fields', { body: { projectSlug: 'app', yaml: 'name: x' } }, '/projectSlug'],
      ['no body', {}, ''],
    ])('answers 400 for %s, with field issues pointing into the body', async (_case, request, pointer) => {
      const org = await organization();
      const answer = await call(hub, 'POST', path, { token: org.key, ...request });
      expectProblem(answer, 400, 'invalid_request');
      if (pointer !== undefined)
        expect(answer.body.issues).toContainEqual(
          expect.objectContaining({ pointer, code: expect.stringMatching(/^request\./) }),
        );
      expect(await counts(org.organizationId)).toEqual({ triggers: 0, revisions: 0 });
    });

    it('reports every body issue in one answer', async () => {
      const answer = await call(hub, 'POST', path, { token: ctx.key, body: { yaml: 7, extra: true } });
      expectProblem(answer, 400, 'invalid_request');
      expect(answer.body.issues.map((issue: { pointer: string; code: string }) => [issue.code, issue.pointer])).toEqual(
        [
          ['request.unknown_field', '/extra'],
          ['request.type', '/yaml'],
        ],
      );
    });

    it('answers 401 without a credential, and with a malformed, unknown, revoked or other kind of token', async () => {
      const revoked = await setUp(hub);
      expect(
        (
          await call(hub, 'POST', `/api/admin/v1/organizations/${revoked.org}/api-keys/${revoked.keyId}/revoke`, {
            token: hub.adminToken,
          })
        ).status,
      ).toBe(200);
      const enrollment = await call(hub, 'POST', '/api/v1/daemons/enrollment-tokens', { token: ctx.key });
      const deleted = await setUp(hub);
      await hub.sql`delete from api_keys where id = ${deleted.keyId}`;
      const checksumBroken = `${ctx.key.slice(0, 10)}${ctx.key[10] === 'a' ? 'b' : 'a'}${ctx.key.slice(11)}`;
      const attempts: Record<string, string>[] = [
        {},
        { authorization: 'Bearer' },
        { authorization: 'Bearer hub_pk_nope' },
        { authorization: `Basic ${ctx.key}` },
        { authorization: `Bearer ${checksumBroken}` },
        { authorization: `Bearer ${deleted.key}` },
        { authorization: `Bearer ${revoked.key}` },
        { authorization: `Bearer ${hub.adminToken}` },
        { authorization: `Bearer ${enrollment.body.token as string}` },
      ];
      for (const headers of attempts) {
        const answer = await call(hub, 'POST', path, { headers, body: { yaml: triggerYaml } });
        expectProblem(answer, 401, 'unauthorized');
        expect(answer.body).toMatchObject({
          title: 'Authentication required',
          type: expect.stringMatching(/\/problems\/unauthorized$/),
        });
      }
    });
  });

  it.each([
    [
      VALIDATE,
      'configuration:validate',
      ['configuration:install', 'projects:read', 'daemons:enroll', 'runs:dispatch', 'runs:read'],
    ],
    [
      INSTALL,
      'configuration:install',
      ['configuration:validate', 'projects:read', 'daemons:enroll', 'runs:dispatch', 'runs:read'],
    ],
  ])('%s answers 403 naming %s to a key without it, and records nothing', async (path, requiredScope, scopes) => {
    const org = await organization({ scopes });
    const answer = await call(hub, 'POST', path, { token: org.key, body: { yaml: triggerYaml } });
    expectProblem(answer, 403, 'insufficient_scope');
    expect(answer.body.requiredScope).toBe(requiredScope);
    expect(await counts(org.organizationId)).toEqual({ triggers: 0, revisions: 0 });
  });

  describe.each([VALIDATE, INSTALL])('%s answers 422', (path) => {
    it('for YAML that does not parse, with the position of the error', async () => {
      const org = await organization();
      const answer = await call(hub, 'POST', path, { token: org.key, body: { yaml: 'name: broken\non: [\n' } });
      expectProblem(answer, 422, 'invalid_trigger');
      expect(answer.body.issues).toEqual([
        expect.objectContaining({
          code: 'yaml.syntax',
          pointer: expect.any(String),
          message: expect.any(String),
          line: 2,
          column: expect.any(Number),
        }),
      ]);
      expect(await counts(org.organizationId)).toEqual({ triggers: 0, revisions: 0 });
    });

    it('for a document against the schema, with the line and column of the node', async () => {
      const org = await organization();
      const yaml = triggerYaml.replace('enabled: true', 'enabled: "yes"');
      const answer = await call(hub, 'POST', path, { token: org.key, body: { yaml } });
      expectProblem(answer, 422, 'invalid_trigger');
      expect(answer.body.issues).toEqual([
        expect.objectContaining({ code: 'schema.type', pointer: '/enabled', ...positionOf(yaml, '"yes"') }),
      ]);
    });

    it('for an unknown daemon, suggesting the enrolled one', async () => {
      const yaml = triggerYaml.replace('daemon: build-box', 'daemon: build-bx');
      const answer = await call(hub, 'POST', path, { token: ctx.key, body: { yaml } });
      expectProblem(answer, 422, 'invalid_trigger');
      expect(answer.body.issues).toEqual([
        expect.objectContaining({
          code: 'resource.unknown_daemon',
          pointer: '/run/target/daemon',
          message: expect.stringContaining('build-box'),
          ...positionOf(yaml, 'build-bx'),
        }),
      ]);
    });

    it('for a daemon enrolled only in another organization', async () => {
      const org = await setUp(hub);
      const answer = await call(hub, 'POST', path, { token: org.key, body: { yaml: triggerYaml } });
      expectProblem(answer, 422, 'invalid_trigger');
      expect(answer.body.issues).toEqual([
        expect.objectContaining({
          code: 'resource.unknown_daemon',
          pointer: '/run/target/daemon',
          ...positionOf(triggerYaml, 'build-box'),
        }),
      ]);
    });

    it('for a provider the daemon does not advertise', async () => {
      const yaml = triggerYaml.replace('provider: codex', 'provider: gemini');
      const answer = await call(hub, 'POST', path, { token: ctx.key, body: { yaml } });
      expectProblem(answer, 422, 'invalid_trigger');
      expect(answer.body.issues).toEqual([
        expect.objectContaining({
          code: 'resource.unknown_runtime',
          pointer: '/run/agent/provider',
          ...positionOf(yaml, 'gemini'),
        }),
      ]);
    });

    it('for a model the daemon does not list', async () => {
      const yaml = triggerYaml.replace('model: gpt-5', 'model: gpt-4');
      const answer = await call(hub, 'POST', path, { token: ctx.key, body: { yaml } });
      expectProblem(answer, 422, 'invalid_trigger');
      expect(answer.body.issues).toEqual([
        expect.objectContaining({
          code: 'resource.unknown_model',
          pointer: '/run/agent/model',
          ...positionOf(yaml, 'gpt-4'),
        }),
      ]);
    });
  });

  it('changes nothing on a failed install: no trigger, no revision, the active revision kept, no version consumed', async () => {
    const org = await organization();
    const unknownDaemon = triggerYaml.replace('daemon: build-box', 'daemon: nowhere');
    expect((await call(hub, 'POST', INSTALL, { token: org.key, body: { yaml: unknownDaemon } })).status).toBe(422);
    expect((await call(hub, 'POST', INSTALL, { token: org.key, body: { yaml: 'name: [' } })).status).toBe(422);
    expect(await counts(org.organizationId)).toEqual({ triggers: 0, revisions: 0 });

    const first = await call(hub, 'POST', INSTALL, { token: org.key, body: { yaml: triggerYaml } });
    expect(first.body.version).toBe(1);
    expect((await call(hub, 'POST', INSTALL, { token: org.key, body: { yaml: unknownDaemon } })).status).toBe(422);
    expect((await call(hub, 'POST', INSTALL, { token: org.key, body: { yaml: triggerYaml, extra: 1 } })).status).toBe(
      400,
    );
    const revisions =
      await hub.sql`select id, version, active from trigger_revisions where trigger_id = ${first.body.triggerId as string}`;
    expect(revisions).toEqual([{ id: first.body.revisionId, version: 1, active: true }]);
    const [trigger] = await hub.sql`select last_version from triggers where id = ${first.body.triggerId as string}`;
    expect(trigger?.last_version).toBe(1);
    const next = await call(hub, 'POST', INSTALL, { token: org.key, body: { yaml: triggerYaml } });
    expect(next.body).toMatchObject({ triggerId: first.body.triggerId, version: 2 });
  });

  it('checks 401, then 403, then 400, then 422', async () => {
    const noScope = await setUp(hub, { scopes: ['configuration:validate'] });
    const broken = { raw: '{' };
    expect((await call(hub, 'POST', INSTALL, broken)).status).toBe(401);
    expect((await call(hub, 'POST', INSTALL, { token: noScope.key, ...broken })).status).toBe(403);
    expect((await call(hub, 'POST', INSTALL, { token: ctx.key, ...broken })).status).toBe(400);
    expect((await call(hub, 'POST', INSTALL, { token: ctx.key, body: { yaml: '[' } })).status).toBe(422);
  });

  it('answers 415 for a body that is not JSON', async () => {
    const answer = await call(hub, 'POST', VALIDATE, { token: ctx.key, raw: triggerYaml, contentType: 'text/yaml' });
    expectProblem(answer, 415, 'unsupported_media_type');
  });

  it("updates the key's lastUsedAt on a successful validation", async () => {
    const org = await organization();
    await hub.sql`update api_keys set last_used_at = null where id = ${org.keyId}`;
    expect((await call(hub, 'POST', VALIDATE, { token: org.key, body: { yaml: triggerYaml } })).status).toBe(200);
    const [key] = await hub.sql`select last_used_at from api_keys where id = ${org.keyId}`;
    expect(key?.last_used_at).toBeInstanceOf(Date);
  });
});
