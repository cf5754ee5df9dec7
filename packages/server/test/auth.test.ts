import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, setUp } from './support/client.js';
import { databases, freshDatabase, hubOn, startHub } from './support/hub.js';

describe.each(databases)('API keys and the project list on the %s database', (kind) => {
  let hub: Awaited<ReturnType<typeof hubOn>>;

  beforeAll(async () => {
    hub = await hubOn(kind);
  }, 120_000);
  afterAll(async () => hub?.close());

  it("lists only the active projects of the key's organization", async () => {
    const mine = await setUp(hub, { project: 'alpha' });
    await setUp(hub, { project: 'theirs' });
    const admin = { token: hub.adminToken };
    await call(hub, 'POST', `/api/admin/v1/organizations/${mine.org}/projects`, {
      ...admin,
      body: { slug: 'beta', name: 'Beta' },
    });
    await call(hub, 'POST', `/api/admin/v1/organizations/${mine.org}/projects`, {
      ...admin,
      body: { slug: 'gone', name: 'Gone' },
    });
    expect(
      (await call(hub, 'POST', `/api/admin/v1/organizations/${mine.org}/projects/gone/deactivate`, admin)).status,
    ).toBe(200);
    const answer = await call(hub, 'GET', '/api/v1/projects', { token: mine.key });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      projects: [
        { id: expect.any(String), slug: 'alpha', name: 'alpha' },
        { id: expect.any(String), slug: 'beta', name: 'Beta' },
      ],
    });
  });

  it('answers the same 401 for a missing, malformed, unknown, mistyped and revoked key', async () => {
    const ctx = await setUp(hub);
    const revoked = await setUp(hub);
    expect(
      (
        await call(hub, 'POST', `/api/admin/v1/organizations/${revoked.org}/api-keys/${revoked.keyId}/revoke`, {
          token: hub.adminToken,
        })
      ).status,
    ).toBe(200);
    const mistyped = `${ctx.key.slice(0, -1)}${ctx.key.endsWith('a') ? 'b' : 'a'}`;
    const unknown = `hub_pk_${'A'.repeat(38)}`;
    const answers = await Promise.all(
      [undefined, 'not-a-key', unknown, mistyped, revoked.key].map((token) =>
        call(hub, 'GET', '/api/v1/projects', token === undefined ? {} : { token }),
      ),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const { requestId, ...rest } = answer.body;
      expect(requestId).toBe(answer.headers.get('x-request-id'));
      expect(rest).toEqual({
        type: `${hub.url}/problems/unauthorized`,
        title: 'Authentication required',
        status: 401,
        detail: answers[0]?.body.detail,
        code: 'unauthorized',
      });
    }
  });

  it('answers 403 naming the missing scope', async () => {
    const ctx = await setUp(hub, { scopes: ['configuration:validate'] });
    const answer = await call(hub, 'GET', '/api/v1/projects', { token: ctx.key });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ code: 'insufficient_scope', requiredScope: 'projects:read', status: 403 });
  });

  it('revokes a key for the very next request', async () => {
    const ctx = await setUp(hub);
    expect((await call(hub, 'GET', '/api/v1/projects', { token: ctx.key })).status).toBe(200);
    await call(hub, 'POST', `/api/admin/v1/organizations/${ctx.org}/api-keys/${ctx.keyId}/revoke`, {
      token: hub.adminToken,
    });
    expect((await call(hub, 'GET', '/api/v1/projects', { token: ctx.key })).status).toBe(401);
  });

  it('updates lastUsedAt on successful scoped operations only', async () => {
    const ctx = await setUp(hub, { scopes: ['projects:read'] });
    const listing = async () =>
      (await call(hub, 'GET', `/api/admin/v1/organizations/${ctx.org}/api-keys`, { token: hub.adminToken })).body
        .apiKeys[0];
    expect((await listing()).lastUsedAt).toBeNull();
    await call(hub, 'POST', '/api/v1/configurations/validate', { token: ctx.key, body: {} });
    expect((await listing()).lastUsedAt).toBeNull();
    await call(hub, 'GET', '/api/v1/projects', { token: ctx.key });
    const used = await listing();
    expect(Date.parse(used.lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(used).toMatchObject({ status: 'active', scopes: ['projects:read'], prefix: ctx.key.slice(0, 15) });
  });

  it('stores only a digest of each key', async () => {
    const ctx = await setUp(hub);
    const rows = await hub.sql`select prefix, digest from api_keys where id = ${ctx.keyId}`;
    expect(rows[0]?.prefix).toBe(ctx.key.slice(0, 15));
    expect(Buffer.from(rows[0]?.digest as Uint8Array).toString('hex')).not.toContain(
      Buffer.from(ctx.key).toString('hex'),
    );
    const dump = JSON.stringify(await hub.sql`select * from api_keys`);
    expect(dump).not.toContain(ctx.key.slice(15));
  });
});

describe('the operator API', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;

  beforeAll(async () => {
    hub = await hubOn('external');
  }, 120_000);
  afterAll(async () => hub?.close());

  it('answers 401 without the admin token', async () => {
    for (const token of [undefined, 'wrong', `${hub.adminToken}x`]) {
      const answer = await call(hub, 'POST', '/api/admin/v1/organizations', {
        ...(token ? { token } : {}),
        body: { slug: 'x', name: 'x' },
      });
      expect(answer.status).toBe(401);
    }
  });

  it('creates organizations and projects, refusing duplicates and bad slugs', async () => {
    const admin = { token: hub.adminToken };
    const created = await call(hub, 'POST', '/api/admin/v1/organizations', {
      ...admin,
      body: { slug: 'acme', name: 'Acme Inc.' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), slug: 'acme', name: 'Acme Inc.' });
    expect(
      (await call(hub, 'POST', '/api/admin/v1/organizations', { ...admin, body: { slug: 'acme', name: 'Again' } }))
        .status,
    ).toBe(409);
    expect(
      (await call(hub, 'POST', '/api/admin/v1/organizations', { ...admin, body: { slug: 'Bad Slug', name: 'x' } }))
        .status,
    ).toBe(400);
    expect(
      (
        await call(hub, 'POST', '/api/admin/v1/organizations/acme/projects', {
          ...admin,
          body: { slug: 'web', name: 'Web' },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await call(hub, 'POST', '/api/admin/v1/organizations/acme/projects', {
          ...admin,
          body: { slug: 'web', name: 'Web' },
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await call(hub, 'POST', '/api/admin/v1/organizations/nobody/projects', {
          ...admin,
          body: { slug: 'web', name: 'Web' },
        })
      ).status,
    ).toBe(404);
    expect((await call(hub, 'POST', '/api/admin/v1/organizations/acme/projects/none/deactivate', admin)).status).toBe(
      404,
    );
  });

  it("shows a key's secret once, lists keys without it, and revokes", async () => {
    const ctx = await setUp(hub);
    const admin = { token: hub.adminToken };
    const created = await call(hub, 'POST', `/api/admin/v1/organizations/${ctx.org}/api-keys`, {
      ...admin,
      body: { name: 'deploy', scopes: ['runs:read'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'deploy',
      prefix: created.body.secret.slice(0, 15),
      scopes: ['runs:read'],
      secret: expect.stringMatching(/^hub_pk_[0-9A-Za-z]{38}$/),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const listed = await call(hub, 'GET', `/api/admin/v1/organizations/${ctx.org}/api-keys`, admin);
    expect(listed.text).not.toContain(created.body.secret);
    expect(listed.body.apiKeys.map((key: { name: string; status: string }) => [key.name, key.status])).toEqual([
      ['test', 'active'],
      ['deploy', 'active'],
    ]);
    expect(
      (await call(hub, 'POST', `/api/admin/v1/organizations/${ctx.org}/api-keys/${created.body.id}/revoke`, admin))
        .status,
    ).toBe(200);
    const after = await call(hub, 'GET', `/api/admin/v1/organizations/${ctx.org}/api-keys`, admin);
    expect(after.body.apiKeys[1].status).toBe('revoked');
    expect(
      (await call(hub, 'POST', `/api/admin/v1/organizations/${ctx.org}/api-keys/not-a-uuid/revoke`, admin)).status,
    ).toBe(404);
    const other = await setUp(hub);
    expect(
      (await call(hub, 'POST', `/api/admin/v1/organizations/${other.org}/api-keys/${ctx.keyId}/revoke`, admin)).status,
    ).toBe(404);
  });

  it('refuses unknown scopes and empty scope lists', async () => {
    const ctx = await setUp(hub);
    for (const scopes of [[], ['root'], 'projects:read', undefined]) {
      const answer = await call(hub, 'POST', `/api/admin/v1/organizations/${ctx.org}/api-keys`, {
        token: hub.adminToken,
        body: { name: 'x', scopes },
      });
      expect(answer.status).toBe(400);
      expect(answer.body.issues.length).toBeGreaterThan(0);
    }
  });
});

describe('several hub instances on one database', () => {
  it('migrate together without racing, and see a revocation at once', async () => {
    const database = await freshDatabase();
    const hubs = await Promise.all([0, 1, 2].map(() => startHub({ databaseUrl: database.url })));
    try {
      const [a, b, c] = hubs as [(typeof hubs)[0], (typeof hubs)[0], (typeof hubs)[0]];
      const ctx = await setUp({ url: a.url, adminToken: a.adminToken });
      expect((await call(b, 'GET', '/api/v1/projects', { token: ctx.key })).status).toBe(200);
      await call(c, 'POST', `/api/admin/v1/organizations/${ctx.org}/api-keys/${ctx.keyId}/revoke`, {
        token: c.adminToken,
      });
      expect((await call(b, 'GET', '/api/v1/projects', { token: ctx.key })).status).toBe(401);
      expect((await call(a, 'GET', '/api/v1/projects', { token: ctx.key })).status).toBe(401);
    } finally {
      await Promise.all(hubs.map((hub) => hub.stop()));
      await database.drop();
    }
  }, 120_000);
});
