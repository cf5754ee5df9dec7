// The audit trail: each change's event, in the change's own transaction, with who caused it; and
// GET /api/v1/audit-events. Against real hubs on both databases; account actions through the
// dashboard's store on the hub's own database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardStore, type DashboardStore } from '../src/dashboard/store.js';
import { call, expectProblem, setUp } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { databases, hubOn } from './support/hub.js';

const PASSWORD = 'correct horse battery';
const ALL = [
  'projects:read',
  'configuration:validate',
  'configuration:install',
  'daemons:enroll',
  'runs:dispatch',
  'runs:read',
  'audit:read',
];
const CONFIGURATION = `
environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: /tmp/work }
  - { name: nowhere, kind: daemon, daemon: never-seen, cwd: /tmp }
triggers:
  - name: fix-tests
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [dev-lead] }
    steps:
      - { id: fix, environment: laptop, agent: { provider: claude }, prompt: [ { text: go } ] }
  - name: far-away
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [dev-lead] }
    steps:
      - { id: go, environment: nowhere, agent: { provider: claude }, prompt: [ { text: go } ] }
`;
const TRIGGER = `
name: nightly-triage
on:
  manual.run: {}
filters:
  from_users: [ci-bot]
run:
  target: { daemon: dev-box, cwd: /srv/repo }
  agent:
    provider: codex
    prompt: "Triage. {{ prompt }}"
    max_runtime: 30m
`;

type Event = {
  id: string;
  at: string;
  kind: string;
  actor: { kind: string; id?: string; name?: string; prefix?: string };
  subject: Record<string, unknown>;
  address?: string;
};

describe.each(databases)('the audit trail on the %s database', (kind) => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let store: DashboardStore;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let other: Awaited<ReturnType<typeof setUp>>;
  let ownerId: string;
  let organizationId: string;
  let devBox: TestDaemon;

  /** Every event of the organization, through the API, newest first (pages of `limit`). */
  const events = async (key = ctx.key, limit = 200): Promise<Event[]> => {
    const all: Event[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`;
      const page = await call(hub, 'GET', `/api/v1/audit-events${query}`, { token: key });
      expect(page.status, page.text).toBe(200);
      all.push(...page.body.events);
      cursor = page.body.next;
    } while (cursor !== null);
    return all;
  };
  const ofKind = async (kind: string) => (await events()).filter((event) => event.kind === kind);

  beforeAll(async () => {
    hub = await hubOn(kind);
    store = dashboardStore(hub.sql);
    // Setup: the first owner and their organization; then the operator's key in that organization.
    const token = (await store.issueSetupToken()) as string;
    const setup = await store.completeSetup(
      token,
      { name: 'Ada <script>', email: 'ada@example.com', password: PASSWORD },
      { slug: 'acme', name: 'Acme' },
    );
    expect(setup.ok).toBe(true);
    const [row] = await hub.sql<{ accountId: string; organizationId: string }[]>`
      select account_id as "accountId", organization_id as "organizationId" from organization_members`;
    ({ accountId: ownerId, organizationId } = row as { accountId: string; organizationId: string });
    const key = await call(hub, 'POST', '/api/admin/v1/organizations/acme/api-keys', {
      token: hub.adminToken,
      body: { name: 'ci', scopes: ALL },
    });
    expect(key.status, hub.output()).toBe(201);
    await call(hub, 'POST', '/api/admin/v1/organizations/acme/projects', {
      token: hub.adminToken,
      body: { slug: 'app', name: 'App' },
    });
    ctx = { org: 'acme', project: 'app', key: key.body.secret, keyId: key.body.id };
    other = await setUp(hub, { scopes: ALL });
    devBox = (await TestDaemon.enroll(hub, ctx.key, 'dev-box')).keepAlive(300);
    await devBox.heartbeat();
    await TestDaemon.enroll(hub, ctx.key, 'never-seen');
  }, 120_000);
  afterAll(async () => {
    devBox?.stop();
    await hub?.close();
  });

  it("records the setup, the operator's key, enrollment tokens and enrollments, each once with its actor", async () => {
    const added = await ofKind('member.added');
    expect(added).toEqual([
      expect.objectContaining({
        actor: { kind: 'account', id: ownerId, name: 'Ada <script>' },
        subject: { accountId: ownerId, name: 'Ada <script>', role: 'owner' },
      }),
    ]);
    const created = await ofKind('api_key.created');
    expect(created).toEqual([
      expect.objectContaining({
        actor: { kind: 'operator' },
        subject: expect.objectContaining({ keyId: ctx.keyId, name: 'ci' }),
      }),
    ]);
    const tokens = await ofKind('enrollment_token.issued');
    expect(tokens).toHaveLength(2);
    for (const token of tokens)
      expect(token.actor).toMatchObject({
        kind: 'key',
        id: ctx.keyId,
        name: 'ci',
        prefix: expect.stringMatching(/^hub_pk_/),
      });
    const enrolled = await ofKind('daemon.enrolled');
    expect(enrolled.map((event) => event.subject.name).sort()).toEqual(['dev-box', 'never-seen']);
    expect(enrolled[0]?.actor).toEqual({ kind: 'daemon' });
  });

  it('records an install and a dispatch, and nothing for a refused install or a dispatch to an offline daemon', async () => {
    const refused = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: 'app', yaml: 'triggers: [' },
    });
    expect(refused.status).toBe(422);
    expect(await ofKind('configuration.installed')).toEqual([]);
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: 'app', yaml: CONFIGURATION },
    });
    expect(installed.status, installed.text).toBe(201);
    expect(await ofKind('configuration.installed')).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ kind: 'key', id: ctx.keyId }),
        subject: { projectSlug: 'app', version: 1, revisionId: installed.body.versionId },
      }),
    ]);
    const trigger = await call(hub, 'POST', '/api/v1/triggers/install', { token: ctx.key, body: { yaml: TRIGGER } });
    expect(trigger.status, trigger.text).toBe(201);
    expect(await ofKind('trigger.installed')).toEqual([
      expect.objectContaining({ subject: expect.objectContaining({ trigger: 'nightly-triage', version: 1 }) }),
    ]);

    const offline = await call(hub, 'POST', '/api/v1/manual-runs', {
      token: ctx.key,
      body: { projectSlug: 'app', trigger: 'far-away', actor: 'dev-lead', deliveryKey: 'd-0' },
    });
    expect(offline.status).toBe(409);
    expect(await ofKind('run.dispatched')).toEqual([]);
    const body = { projectSlug: 'app', trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: 'd-1' };
    const run = await call(hub, 'POST', '/api/v1/manual-runs', { token: ctx.key, body });
    expect(run.status, run.text).toBe(200);
    const replay = await call(hub, 'POST', '/api/v1/manual-runs', { token: ctx.key, body });
    expect(replay.status).toBe(200);
    expect(await ofKind('run.dispatched')).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ kind: 'key', id: ctx.keyId }),
        subject: { runId: run.body.triggerRunId, trigger: 'fix-tests', projectSlug: 'app', daemon: 'dev-box' },
      }),
    ]);
  });

  it('records what people do in the dashboard: keys, daemons, members and sign-ins', async () => {
    const key = await store.createApiKey(ownerId, organizationId, { name: 'made-by-ada', scopes: ['runs:read'] });
    if (!key.ok) throw new Error('key refused');
    expect(await store.revokeApiKey(ownerId, organizationId, key.id)).toBe('revoked');
    expect(await store.revokeApiKey(ownerId, organizationId, key.id)).toBe('revoked');
    const operatorRevoke = await call(
      hub,
      'POST',
      `/api/admin/v1/organizations/${other.org}/api-keys/${other.keyId}/revoke`,
      { token: hub.adminToken },
    );
    expect(operatorRevoke.status).toBe(200);
    const keyEvents = (await events()).filter(
      (event) => event.kind.startsWith('api_key.') && event.subject.keyId === key.id,
    );
    expect(keyEvents.map((event) => [event.kind, event.actor.kind, event.actor.id])).toEqual([
      ['api_key.revoked', 'account', ownerId],
      ['api_key.created', 'account', ownerId],
    ]);

    const invitation = await store.createInvitation(ownerId, organizationId, 'member');
    if (!invitation.ok) throw new Error('invitation refused');
    const joined = await store.acceptInvitationAsNewAccount(
      invitation.token,
      { name: 'Bob', email: 'bob@example.com', password: PASSWORD },
      '192.0.2.7',
    );
    expect(joined.ok).toBe(true);
    const [bob] = await hub.sql<{ id: string }[]>`select id from accounts where email = 'bob@example.com'`;
    const bobId = (bob as { id: string }).id;
    expect(await store.changeRole(ownerId, organizationId, bobId, 'owner')).toBe('done');
    expect(await store.removeMember(bobId, organizationId, ownerId)).toBe('done');
    expect(await store.leaveOrganization(ownerId, organizationId)).toBe('not_found');
    const second = await store.createInvitation(bobId, organizationId, 'member');
    if (!second.ok) throw new Error('invitation refused');
    expect(
      (
        await store.acceptInvitationAsNewAccount(
          second.token,
          { name: 'Cy', email: 'cy@example.com', password: PASSWORD },
          '192.0.2.7',
        )
      ).ok,
    ).toBe(true);
    const [cy] = await hub.sql<{ id: string }[]>`select id from accounts where email = 'cy@example.com'`;
    expect(await store.leaveOrganization((cy as { id: string }).id, organizationId)).toBe('done');
    expect(await store.signIn('bob@example.com', 'wrong password', '192.0.2.7')).toMatchObject({ ok: false });
    expect(await store.signIn('bob@example.com', PASSWORD, '::ffff:192.0.2.7')).toMatchObject({ ok: true });
    const daemon = devBox.id;
    expect(await store.retireDaemon(bobId, organizationId, daemon)).toBe('retired');
    expect(await store.retireDaemon(bobId, organizationId, daemon)).toBe('not_found');

    const people = (await events()).filter(
      (event) =>
        event.kind.startsWith('member.') || event.kind === 'account.signed_in' || event.kind === 'daemon.retired',
    );
    expect(
      people.map((event) => [
        event.kind,
        event.actor.name,
        event.subject.name ?? null,
        event.subject.role ?? null,
        event.address ?? null,
      ]),
    ).toEqual([
      ['daemon.retired', 'Bob', 'dev-box', null, null],
      ['account.signed_in', 'Bob', 'Bob', null, '192.0.2.7'],
      ['member.left', 'Cy', 'Cy', null, null],
      ['member.added', 'Cy', 'Cy', 'member', null],
      ['member.removed', 'Bob', 'Ada <script>', null, null],
      ['member.role_changed', 'Ada <script>', 'Bob', 'owner', null],
      ['member.added', 'Bob', 'Bob', 'member', null],
      ['member.added', 'Ada <script>', 'Ada <script>', 'owner', null],
    ]);
  });

  it('records a project created, deactivated and reactivated, by the operator and by an owner in the dashboard', async () => {
    expect(await ofKind('project.created')).toEqual([
      expect.objectContaining({ actor: { kind: 'operator' }, subject: { projectSlug: 'app', name: 'App' } }),
    ]);
    // An owner of acme by now (see above): Bob.
    const [{ id: bob }] = (await hub.sql`
      select a.id from accounts a join organization_members m on m.account_id = a.id
      where a.name = 'Bob' and m.organization_id = ${organizationId} and m.role = 'owner'`) as [{ id: string }];
    expect(await store.createProject(bob, organizationId, { slug: 'side', name: 'Side' })).toBe('created');
    expect(await store.setProjectActive(bob, organizationId, 'side', false)).toBe('done');
    expect(await store.setProjectActive(bob, organizationId, 'side', true)).toBe('done');
    const deactivated = await call(hub, 'POST', '/api/admin/v1/organizations/acme/projects/side/deactivate', {
      token: hub.adminToken,
    });
    expect(deactivated.status).toBe(200);
    const side = (await events()).filter(
      (event) => event.subject.projectSlug === 'side' && event.kind.startsWith('project.'),
    );
    expect(side.map((event) => [event.kind, event.actor.kind, event.actor.name ?? null])).toEqual([
      ['project.deactivated', 'operator', null],
      ['project.reactivated', 'account', 'Bob'],
      ['project.deactivated', 'account', 'Bob'],
      ['project.created', 'account', 'Bob'],
    ]);
    // A member is refused, and nothing is recorded.
    const before = (await events()).length;
    expect(await store.createProject(crypto.randomUUID(), organizationId, { slug: 'nope', name: 'Nope' })).toBe(
      'forbidden',
    );
    expect((await events()).length).toBe(before);
  });

  it("pages through GET /api/v1/audit-events with the cursor, newest first, and never shows another organization's events", async () => {
    const all = await events();
    const paged = await events(ctx.key, 2);
    expect(paged.map((event) => event.id)).toEqual(all.map((event) => event.id));
    const times = all.map((event) => Date.parse(event.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    // The other organization's key was revoked above: its events are read with a new key.
    const fresh = await call(hub, 'POST', `/api/admin/v1/organizations/${other.org}/api-keys`, {
      token: hub.adminToken,
      body: { name: 'again', scopes: ['audit:read'] },
    });
    const otherEvents = await events(fresh.body.secret);
    expect(otherEvents.map((event) => event.kind).sort()).toEqual(
      ['api_key.created', 'api_key.revoked', 'api_key.created', 'project.created'].sort(),
    );
    const ours = new Set(all.map((event) => event.id));
    for (const event of otherEvents) expect(ours.has(event.id)).toBe(false);
  });

  it('refuses a key without audit:read (403), and a cursor or limit it did not give (400)', async () => {
    const narrow = await call(hub, 'POST', '/api/admin/v1/organizations/acme/api-keys', {
      token: hub.adminToken,
      body: { name: 'narrow', scopes: ['runs:read'] },
    });
    const forbidden = await call(hub, 'GET', '/api/v1/audit-events', { token: narrow.body.secret });
    expectProblem(forbidden, 403, 'insufficient_scope');
    expect(forbidden.body.requiredScope).toBe('audit:read');
    expectProblem(
      await call(hub, 'GET', '/api/v1/audit-events?cursor=not-a-cursor', { token: ctx.key }),
      400,
      'invalid_request',
    );
    expectProblem(await call(hub, 'GET', '/api/v1/audit-events?limit=0', { token: ctx.key }), 400, 'invalid_request');
    expectProblem(await call(hub, 'GET', '/api/v1/audit-events?limit=201', { token: ctx.key }), 400, 'invalid_request');
    const first = await call(hub, 'GET', '/api/v1/audit-events', { token: ctx.key });
    expect(first.body.events.length).toBeLessThanOrEqual(50);
  });
});
