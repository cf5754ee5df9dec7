// Revocation checked again at commit (issue 14): a key revoked while its install or dispatch is on
// its way stores nothing and gets 401. The race is made deterministic with a lock taken from a
// test connection: the request is held inside its write, the key is revoked through the operator
// API, then the lock is released and the write goes on to its commit.
import { randomBytes } from 'node:crypto';
import type { ReservedSql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectProblem, setUp, type Answer } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { databases, hubOn } from './support/hub.js';

/** One trigger on one daemon, padded with a comment to about 850 KB: compiled in a worker. */
const CONFIGURATION = `
environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: /tmp/work }
triggers:
  - name: fix-tests
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [dev-lead] }
    steps:
      - { id: fix, environment: laptop, agent: { provider: claude }, prompt: [ { text: "Fix. {{ prompt }}" } ] }
`;
const LARGE = `${CONFIGURATION}# ${'x'.repeat(850_000)}\n`;

const TRIGGER = `
name: nightly-triage
on:
  manual.run: {}
filters:
  from_users: [ci-bot]
run:
  target: { daemon: dev-box, cwd: /srv/repo }
  agent:
    provider: claude
    prompt: "Triage. {{ prompt }}"
    max_runtime: 30m
`;

describe.each(databases)('revocation at commit on the %s database', (kind) => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  const daemons: TestDaemon[] = [];

  beforeAll(async () => {
    hub = await hubOn(kind);
  }, 120_000);
  afterAll(async () => {
    for (const daemon of daemons) daemon.stop();
    await hub?.close();
  });

  /** An organization with a key, its daemon online, and (unless `bare`) the configuration installed. */
  async function organization(options: { bare?: boolean } = {}) {
    const ctx = await setUp(hub);
    const daemon = (await TestDaemon.enroll(hub, ctx.key, 'dev-box', [{ provider: 'claude' }])).keepAlive(1000);
    daemons.push(daemon);
    expect((await daemon.heartbeat()).status).toBe(200);
    if (options.bare !== true) {
      const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
        token: ctx.key,
        body: { projectSlug: ctx.project, yaml: CONFIGURATION },
      });
      expect(installed.status, installed.text).toBe(201);
    }
    return ctx;
  }

  /**
   * Sends `request` while `lock` (run on a connection of the test's own) is held, waits until the
   * hub's statement `held` waits for that lock, runs `meanwhile`, then releases the lock and
   * answers what the request got.
   */
  async function heldAt(
    lock: (tx: ReservedSql) => Promise<unknown>,
    held: string,
    request: () => Promise<Answer>,
    meanwhile: () => Promise<void>,
  ): Promise<Answer> {
    const holder = await hub.sql.reserve();
    try {
      await holder`begin`;
      await lock(holder);
      const answer = request();
      for (let waiting = false; !waiting;) {
        const rows = await hub.sql`
          select 1 from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query like ${`%${held}%`} and pid <> pg_backend_pid()`;
        waiting = rows.length > 0;
        if (!waiting) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await meanwhile();
      await holder`rollback`;
      return await answer;
    } finally {
      holder.release();
    }
  }

  const revoke = async (ctx: { org: string; keyId: string }) => {
    const answer = await call(hub, 'POST', `/api/admin/v1/organizations/${ctx.org}/api-keys/${ctx.keyId}/revoke`, {
      token: hub.adminToken,
    });
    expect(answer.status).toBe(200);
  };
  const lockProject = (ctx: { org: string; project: string }) => (tx: ReservedSql) =>
    tx`select 1 from projects p join organizations o on o.id = p.organization_id where o.slug = ${ctx.org} and p.slug = ${ctx.project} for update of p`;
  const installLarge = (ctx: { key: string; project: string }) => () =>
    call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: ctx.project, yaml: LARGE },
    });

  it('stores nothing of a large install whose key is revoked before it commits, and answers 401', async () => {
    const ctx = await organization({ bare: true });
    const answer = await heldAt(lockProject(ctx), 'update projects set last_version', installLarge(ctx), () =>
      revoke(ctx),
    );
    expectProblem(answer, 401, 'unauthorized');
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="hub"');
    const [project] = await hub.sql`
      select p.last_version, (select count(*)::int from configuration_revisions r where r.project_id = p.id) as revisions
      from projects p join organizations o on o.id = p.organization_id where o.slug = ${ctx.org}`;
    expect(project).toEqual({ last_version: 0, revisions: 0 });
    const events =
      await hub.sql`select e.kind from audit_events e join organizations o on o.id = e.organization_id where o.slug = ${ctx.org} order by e.id`;
    expect(events.map((event) => event.kind)).not.toContain('configuration.installed');
    expect(events.map((event) => event.kind)).toContain('api_key.revoked');
  });

  it('stores an install held the same way when the key stays valid', async () => {
    const ctx = await organization({ bare: true });
    const answer = await heldAt(
      lockProject(ctx),
      'update projects set last_version',
      installLarge(ctx),
      async () => {},
    );
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body).toMatchObject({ version: 1, active: true });
  });

  it('stores nothing of a trigger install whose key is revoked before it commits', async () => {
    const ctx = await organization({ bare: true });
    const first = await call(hub, 'POST', '/api/v1/triggers/install', { token: ctx.key, body: { yaml: TRIGGER } });
    expect(first.status, first.text).toBe(201);
    const lockTrigger = (tx: ReservedSql) => tx`select 1 from triggers where id = ${first.body.triggerId} for update`;
    const install = () => call(hub, 'POST', '/api/v1/triggers/install', { token: ctx.key, body: { yaml: TRIGGER } });
    const answer = await heldAt(lockTrigger, 'insert into triggers', install, () => revoke(ctx));
    expectProblem(answer, 401, 'unauthorized');
    const [trigger] = await hub.sql`
      select t.last_version, (select count(*)::int from trigger_revisions r where r.trigger_id = t.id) as revisions from triggers t where t.id = ${first.body.triggerId}`;
    expect(trigger).toEqual({ last_version: 1, revisions: 1 });
  });

  // The dispatch is one statement; holding its table keeps it from starting before the revocation.
  const lockRuns = (tx: ReservedSql) => tx`lock table trigger_runs in share mode`;
  const dispatchBody = (ctx: { project: string }, deliveryKey: string) => ({
    projectSlug: ctx.project,
    trigger: 'fix-tests',
    actor: 'dev-lead',
    deliveryKey,
  });

  it.each(['A', 'B'] as const)(
    'starts no run for a shape %s dispatch whose key is revoked before it commits, and answers 401',
    async (shape) => {
      const ctx = await organization();
      const deliveryKey = `revoked-${randomBytes(6).toString('hex')}`;
      const dispatch = () =>
        call(hub, 'POST', shape === 'A' ? '/api/manual-runs' : '/api/v1/manual-runs', {
          token: ctx.key,
          body: dispatchBody(ctx, deliveryKey),
        });
      const answer = await heldAt(lockRuns, 'insert into trigger_runs', dispatch, () => revoke(ctx));
      expectProblem(answer, 401, 'unauthorized');
      const organizationId = hub.sql`(select id from organizations where slug = ${ctx.org})`;
      expect(await hub.sql`select 1 from trigger_runs where organization_id = ${organizationId}`).toHaveLength(0);
      expect(
        await hub.sql`select 1 from audit_events where organization_id = ${organizationId} and kind = 'run.dispatched'`,
      ).toHaveLength(0);
      // Nothing holds the delivery key: another key of the organization starts the run with it.
      const other = await call(hub, 'POST', `/api/admin/v1/organizations/${ctx.org}/api-keys`, {
        token: hub.adminToken,
        body: { name: 'other', scopes: ['runs:dispatch'] },
      });
      const fresh = await call(hub, 'POST', '/api/v1/manual-runs', {
        token: other.body.secret,
        body: dispatchBody(ctx, deliveryKey),
      });
      expect(fresh.status, fresh.text).toBe(200);
      expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    },
  );

  it('starts a dispatch held the same way when the key stays valid', async () => {
    const ctx = await organization();
    const dispatch = () =>
      call(hub, 'POST', '/api/v1/manual-runs', {
        token: ctx.key,
        body: dispatchBody(ctx, `kept-${randomBytes(6).toString('hex')}`),
      });
    const answer = await heldAt(lockRuns, 'insert into trigger_runs', dispatch, async () => {});
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ workflowStatus: 'running' });
  });
});
