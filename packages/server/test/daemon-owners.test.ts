// Daemons have an owner (issue 24, finding 2), through the API with real daemons: a member's CLI
// credential replaces only the daemons that member enrolled (an owner's is refused like a name
// clash, and keeps working); owners replace any; removing a member, or their leaving, retires
// the daemons they enrolled, one audit event each; the dashboard's store says who enrolled each.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardStore } from '../src/dashboard/store.js';
import { ExecutionRepository } from '../src/runs/executions.js';
import { call, expectProblem, setUp } from './support/client.js';
import { cliLogin, manualConfiguration } from './support/cli-login.js';
import { TestDaemon } from './support/daemon.js';
import { databases, hubOn } from './support/hub.js';

/** One trigger on Carol's daemon. */
const CONFIGURATION = manualConfiguration('carol-box');
describe.each(databases)('daemons have an owner (%s PostgreSQL)', (kind) => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let store: ReturnType<typeof dashboardStore>;
  let orgId = '';
  let key = '';
  let project = '';
  const people: Record<'alice' | 'carol' | 'dan', string> = { alice: '', carol: '', dan: '' };
  const daemons: TestDaemon[] = [];

  beforeAll(async () => {
    hub = await hubOn(kind);
    store = dashboardStore(hub.sql);
    const ctx = await setUp(hub);
    key = ctx.key;
    project = ctx.project;
    const [org] = await hub.sql<{ id: string }[]>`select id from organizations where slug = ${ctx.org}`;
    orgId = org?.id as string;
    // People as the dashboard makes them (its own tests cover that): Alice owns, Carol and Dan are members.
    for (const [name, role] of [
      ['alice', 'owner'],
      ['carol', 'member'],
      ['dan', 'member'],
    ] as const) {
      const [row] = await hub.sql<{ id: string }[]>`
        insert into accounts (email, name, password_hash) values (${`${name}@example.com`}, ${name[0]?.toUpperCase() + name.slice(1)}, 'scrypt$x')
        returning id`;
      people[name] = row?.id as string;
      await hub.sql`insert into organization_members (organization_id, account_id, role) values (${orgId}, ${people[name]}, ${role})`;
    }
  }, 120_000);

  afterAll(async () => {
    for (const daemon of daemons) daemon.stop();
    await hub?.close();
  });

  /** `hub login` of `account`: a device authorization, approved in the dashboard's store, redeemed. */
  const login = (account: string): Promise<string> => cliLogin(hub, store, account, orgId);
  const enroll = async (credential: string, name: string, replace = false) => {
    const daemon = await TestDaemon.enroll(hub, credential, name, [{ provider: 'claude' }], { replace });
    daemons.push(daemon);
    return daemon;
  };
  const tokenOf = async (credential: string): Promise<string> => {
    const issued = await call(hub, 'POST', '/api/v1/daemons/enrollment-tokens', { token: credential });
    expect(issued.status, issued.text).toBe(201);
    return issued.body.token as string;
  };
  /** Enrolls with `token` as it is: the answer, and the daemon when it was enrolled. */
  const enrollWith = async (token: string, name: string, replace: boolean) => {
    const pair = generateKeyPairSync('ed25519');
    const x = pair.publicKey.export({ format: 'jwk' }).x as string;
    const answer = await call(hub, 'POST', '/api/v1/daemons/enroll', {
      body: { token, name, publicKey: { kty: 'OKP', crv: 'Ed25519', x }, runtimes: [{ provider: 'claude' }], replace },
    });
    const daemon = answer.status === 201 ? new TestDaemon(hub, answer.body.daemonId, name, pair.privateKey) : undefined;
    return { answer, daemon };
  };
  const retiredEvents = (daemonId: string) =>
    hub.sql<{ actorKind: string; accountId: string | null; name: string }[]>`
      select actor_kind as "actorKind", account_id as "accountId", subject->>'name' as name from audit_events
      where organization_id = ${orgId} and kind = 'daemon.retired' and subject->>'daemonId' = ${daemonId}`;

  it('refuses a member replacing an owner’s daemon, lets them replace their own, and retires theirs when they are removed', async () => {
    const alice = await login(people.alice);
    const carol = await login(people.carol);
    const devBox = await enroll(alice, 'dev-box');
    expect((await devBox.heartbeat()).status).toBe(200);

    // Carol takes dev-box with replace: refused like a name clash, and her token is left for another name.
    const token = await tokenOf(carol);
    const { answer: refused } = await enrollWith(token, 'dev-box', true);
    expectProblem(refused, 409, 'daemon_name_taken');
    expect(refused.body.detail).toContain('enrolled by someone else');
    expect((await devBox.heartbeat()).status).toBe(200);
    const [active] = await hub.sql`
      select count(*)::int as n from daemons where organization_id = ${orgId} and name = 'dev-box' and retired_at is null`;
    expect(active?.n).toBe(1);
    const own = await enrollWith(token, 'carol-box', false);
    expect(own.answer.status, own.answer.text).toBe(201);
    expect((await own.daemon?.heartbeat())?.status).toBe(200);

    // Her own daemon she may replace.
    const carolBox = await enroll(carol, 'carol-box', true);
    expect((await carolBox.heartbeat()).status).toBe(200);
    expect((await own.daemon?.heartbeat())?.status).toBe(401);

    // Owners (and organization API keys) replace anyone's.
    await enroll(carol, 'carol-spare');
    const taken = await enroll(alice, 'carol-spare', true);
    expect((await taken.heartbeat()).status).toBe(200);
    const byKey = await enroll(key, 'carol-spare', true);
    expect((await byKey.heartbeat()).status).toBe(200);

    // The dashboard says who enrolled each, and what Carol's removal retires.
    const listed = await store.daemons(orgId, { retired: false, offset: 0, limit: 50 });
    const enroller = (name: string) => listed.daemons.find((row) => row.name === name)?.enrolledBy;
    expect(enroller('dev-box')).toEqual({ kind: 'person', accountId: people.alice, name: 'Alice' });
    expect(enroller('carol-box')).toEqual({ kind: 'person', accountId: people.carol, name: 'Carol' });
    expect(enroller('carol-spare')).toEqual({ kind: 'key', name: 'test', prefix: key.slice(0, 15) });
    expect(await store.enrolledDaemons(orgId, people.carol)).toEqual(['carol-box']);

    // carol-box holds an assignment when Carol is removed.
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: key,
      body: { projectSlug: project, yaml: CONFIGURATION },
    });
    expect(installed.status, installed.text).toBe(201);
    const dispatched = await call(hub, 'POST', '/api/v1/manual-runs', {
      token: key,
      body: { projectSlug: project, trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: 'held-1', input: 'now' },
    });
    expect(dispatched.status, dispatched.text).toBe(200);
    const held = await carolBox.next(5);
    expect(held.status, held.text).toBe(200);
    const executionId = held.body.assignment.executionId as string;
    expect((await carolBox.report(executionId, 'running')).status).toBe(200);

    // Alice removes Carol: carol-box is retired (401), with an event by Alice; dev-box goes on.
    expect(await store.removeMember(people.alice, orgId, people.carol)).toBe('done');
    expect((await carolBox.heartbeat()).status).toBe(401);
    // Its assignment ends as a retired daemon's does: its reports are refused, and once it is offline the sweep marks it lost.
    expect((await carolBox.report(executionId, 'succeeded', { exitCode: 0 })).status).toBe(401);
    await hub.sql`update daemons set last_seen_at = now() - interval '1 hour' where id = ${carolBox.id}`;
    const timing = { offlineAfterMs: 30_000, redeliverAfterMs: 30_000, timeoutGraceMs: 30_000 };
    await new ExecutionRepository(hub.sql, timing).sweepLost();
    const [execution] = await hub.sql`select status from executions where id = ${executionId}`;
    expect(execution?.status).toBe('lost');
    expect(await retiredEvents(carolBox.id)).toEqual([
      { actorKind: 'account', accountId: people.alice, name: 'carol-box' },
    ]);
    expect((await devBox.heartbeat()).status).toBe(200);
    expect(await store.enrolledDaemons(orgId, people.carol)).toEqual([]);
  });

  it('retires the daemons of a member who leaves, the leaver the actor; a change of role retires none', async () => {
    const dan = await login(people.dan);
    const danBox = await enroll(dan, 'dan-box');
    expect((await danBox.heartbeat()).status).toBe(200);
    expect(await store.changeRole(people.alice, orgId, people.dan, 'owner')).toBe('done');
    expect(await store.changeRole(people.alice, orgId, people.dan, 'member')).toBe('done');
    expect((await danBox.heartbeat()).status).toBe(200);
    expect(await store.leaveOrganization(people.dan, orgId)).toBe('done');
    expect((await danBox.heartbeat()).status).toBe(401);
    expect(await retiredEvents(danBox.id)).toEqual([{ actorKind: 'account', accountId: people.dan, name: 'dan-box' }]);
  });
});
