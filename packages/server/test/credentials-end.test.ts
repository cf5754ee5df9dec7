// Credentials follow their person (issue 24): CLI credentials expire (idle, and past a lifetime),
// die with a password change, and a live output stream checks its credential again every few
// seconds and ends (`event: end` with a reason) once it is revoked, expired or its person removed.
// One real hub (a child process) on the machine's PostgreSQL; people and approvals through the
// dashboard's store over the same database, as another hub instance would be.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';
import { dashboardStore } from '../src/dashboard/store.js';
import { hashPassword } from '../src/people/passwords.js';
import { call, expectProblem, setUp } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { hubOn } from './support/hub.js';
import { cliLogin, manualConfiguration, oauthForm, startedRun } from './support/cli-login.js';
import { openStream, type Stream } from './support/sse.js';

const PASSWORD = 'correct horse battery staple';
const CONFIGURATION = manualConfiguration('dev-box', '2h');
describe('credentials follow their person (external PostgreSQL)', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let store: ReturnType<typeof dashboardStore>;
  let alpha: Awaited<ReturnType<typeof setUp>>;
  let beta: Awaited<ReturnType<typeof setUp>>;
  let daemon: TestDaemon;
  let orgIds: Record<string, string>;
  let ada: string;
  let mia: string;
  let deliveries = 0;

  beforeAll(async () => {
    hub = await hubOn('external', {
      HUB_DEVICE_POLL_INTERVAL_SECONDS: '1',
      HUB_STREAM_RECHECK_MS: '200',
      HUB_CLI_CREDENTIAL_IDLE_DAYS: '30',
    });
    store = dashboardStore(hub.sql);
    alpha = await setUp(hub);
    beta = await setUp(hub);
    orgIds = Object.fromEntries(
      (await hub.sql<{ slug: string; id: string }[]>`select slug, id from organizations`).map((row) => [
        row.slug,
        row.id,
      ]),
    );
    const hash = await hashPassword(PASSWORD);
    const [a] =
      await hub.sql`insert into accounts (email, name, password_hash) values ('ada@example.com', 'Ada', ${hash}) returning id`;
    const [m] =
      await hub.sql`insert into accounts (email, name, password_hash) values ('mia@example.com', 'Mia', ${hash}) returning id`;
    ada = a?.id as string;
    mia = m?.id as string;
    await hub.sql`insert into organization_members (organization_id, account_id, role) values
      (${orgIds[alpha.org] as string}, ${ada}, 'owner'), (${orgIds[beta.org] as string}, ${ada}, 'owner'), (${orgIds[alpha.org] as string}, ${mia}, 'member')`;
    daemon = (await TestDaemon.enroll(hub, alpha.key, 'dev-box')).keepAlive(300);
    await daemon.heartbeat();
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: alpha.key,
      body: { projectSlug: alpha.project, yaml: CONFIGURATION },
    });
    expect(installed.status, installed.text).toBe(201);
  }, 120_000);

  afterAll(async () => {
    daemon?.stop();
    await hub?.close();
  });

  /** `hub login`'s grant, approved by `account` for `org`: the CLI credential. */
  const login = (account: string, org: string) => cliLogin(hub, store, account, orgIds[org] as string);
  const projects = (token: string) => call(hub, 'GET', '/api/v1/projects', { token });
  const prefixOf = (token: string) => token.slice(0, 16);

  /** A run of alpha whose execution the daemon took and started, with one chunk of output. */
  const started = () => startedRun(hub, alpha.key, alpha.project, daemon, `end-${++deliveries}`);
  /** A stream opened with `token` that has received the execution's first chunk. */
  const streaming = async (path: string, token: string) => {
    const stream = await openStream(hub, path, token);
    expect(stream.status).toBe(200);
    await stream.waitFor((event) => event.event === 'output');
    return stream;
  };
  const endOf = async (stream: Stream) => {
    const end = await stream.waitFor((event) => event.event === 'end');
    await stream.ended;
    return JSON.parse(end.data) as Record<string, unknown>;
  };

  it('ends a stream opened with an API key once the key is revoked, with the reason', async () => {
    const key = await call(hub, 'POST', `/api/admin/v1/organizations/${alpha.org}/api-keys`, {
      token: hub.adminToken,
      body: { name: 'watcher', scopes: ['runs:read'] },
    });
    expect(key.status, key.text).toBe(201);
    const { executionId, path } = await started();
    const stream = await streaming(path, key.body.secret as string);
    const revoked = await call(
      hub,
      'POST',
      `/api/admin/v1/organizations/${alpha.org}/api-keys/${key.body.id as string}/revoke`,
      { token: hub.adminToken },
    );
    expect(revoked.status, revoked.text).toBe(200);
    expect(await endOf(stream)).toEqual({ executionId, reason: 'credential_revoked' });
    // The execution goes on, and the stream cannot be opened again with the key.
    expectProblem(await call(hub, 'GET', path, { token: key.body.secret as string }), 401, 'unauthorized');
    expect(
      (await call(hub, 'GET', `/api/v1/executions/${executionId}`, { token: alpha.key })).body.execution.status,
    ).toBe('running');
    await daemon.report(executionId, 'succeeded', { exitCode: 0 });
  });

  it('ends a stream opened with a CLI credential once its person is removed from the organization (which revokes the credential)', async () => {
    const token = await login(mia, alpha.org);
    const { executionId, path } = await started();
    const stream = await streaming(path, token);
    expect(await store.removeMember(ada, orgIds[alpha.org] as string, mia)).toBe('done');
    expect(await endOf(stream)).toEqual({ executionId, reason: 'not_a_member' });
    expectProblem(await projects(token), 401, 'unauthorized');
    const [row] = await hub.sql`select revoked_at from api_keys where prefix = ${prefixOf(token)}`;
    expect(row?.revoked_at).not.toBeNull();
    await hub.sql`insert into organization_members (organization_id, account_id, role) values (${orgIds[alpha.org] as string}, ${mia}, 'member')`;
    await daemon.report(executionId, 'succeeded', { exitCode: 0 });
  });

  it('ends a stream once its CLI credential is revoked, or expires while it is open', async () => {
    const revokedToken = await login(ada, alpha.org);
    const expiringToken = await login(ada, alpha.org);
    const { executionId, path } = await started();
    const [revoking, expiring] = await Promise.all([streaming(path, revokedToken), streaming(path, expiringToken)]);
    const credential = (await store.cliCredentials(ada)).find((row) => row.prefix === prefixOf(revokedToken));
    expect(await store.revokeCliCredential(ada, credential?.id as string)).toBe('revoked');
    expect(await endOf(revoking)).toEqual({ executionId, reason: 'credential_revoked' });
    await hub.sql`update api_keys set created_at = now() - interval '400 days' where prefix = ${prefixOf(expiringToken)}`;
    expect(await endOf(expiring)).toEqual({ executionId, reason: 'credential_expired' });
    expectProblem(await projects(expiringToken), 401, 'unauthorized');
    await daemon.report(executionId, 'succeeded', { exitCode: 0 });
  });

  it('refuses a CLI credential past its lifetime or idle too long, with the same 401 as an unknown one; API keys do not expire', async () => {
    const unknown = await projects('hub_cli_0000000000000000000000000000bogus');
    expectProblem(unknown, 401, 'unauthorized');
    const aged = async (set: { created: string; used: string | null }) => {
      const token = await login(ada, alpha.org);
      expect((await projects(token)).status).toBe(200);
      await hub.sql`
        update api_keys set created_at = now() - ${set.created}::interval,
          last_used_at = case when ${set.used}::text is null then null else now() - ${set.used}::interval end
        where prefix = ${prefixOf(token)}`;
      return token;
    };
    // Past the lifetime (365 days), however recently used.
    const old = await aged({ created: '366 days', used: '1 minute' });
    // Idle longer than HUB_CLI_CREDENTIAL_IDLE_DAYS (30 here; 90 by default).
    const idle = await aged({ created: '100 days', used: '31 days' });
    const neverUsed = await aged({ created: '31 days', used: null });
    for (const token of [old, idle, neverUsed]) {
      const refused = await projects(token);
      expectProblem(refused, 401, 'unauthorized');
      expect(refused.body.detail).toBe(unknown.body.detail);
      expect(refused.headers.get('www-authenticate')).toBe(unknown.headers.get('www-authenticate'));
      // A scope it lacks (audit:read) is still a 401, not a 403 naming the scope.
      expectProblem(await call(hub, 'GET', '/api/v1/audit-events', { token }), 401, 'unauthorized');
      // So is the dispatch, on both of its paths (the one-statement path checks the key itself).
      for (let attempt = 0; attempt < 2; attempt++) {
        const dispatch = await call(hub, 'POST', '/api/v1/manual-runs', {
          token,
          body: {
            projectSlug: alpha.project,
            trigger: 'fix-tests',
            actor: 'dev-lead',
            deliveryKey: `x-${++deliveries}`,
          },
        });
        expectProblem(dispatch, 401, 'unauthorized');
      }
    }
    // A credential that dispatched (so this instance keeps a hint for the one-statement path, which
    // checks the key itself before the key check) and then expired is refused there too.
    const dispatcher = await login(ada, alpha.org);
    for (let attempt = 0; attempt < 2; attempt++) {
      const dispatched = await call(hub, 'POST', '/api/v1/manual-runs', {
        token: dispatcher,
        body: { projectSlug: alpha.project, trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: `h-${++deliveries}` },
      });
      expect(dispatched.status, dispatched.text).toBe(200);
    }
    await hub.sql`update api_keys set created_at = now() - interval '366 days' where prefix = ${prefixOf(dispatcher)}`;
    const late = await call(hub, 'POST', '/api/v1/manual-runs', {
      token: dispatcher,
      body: { projectSlug: alpha.project, trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: `h-${++deliveries}` },
    });
    expectProblem(late, 401, 'unauthorized');
    expect(
      (await hub.sql`select count(*)::int as n from trigger_runs where delivery_key = ${`h-${deliveries}`}`)[0]?.n,
    ).toBe(0);
    // Used recently, within its lifetime: valid, and its use moves lastUsedAt on.
    const active = await aged({ created: '300 days', used: '29 days' });
    expect((await projects(active)).status).toBe(200);
    // The account page's list tells the expired ones (this store with the hub's settings).
    const listed = await dashboardStore(hub.sql, {
      cliCredentials: { idleDays: 30, lifetimeDays: 365 },
    }).cliCredentials(ada);
    const statusOf = (token: string) => listed.find((row) => row.prefix === prefixOf(token))?.status;
    expect([old, idle, neverUsed, active].map(statusOf)).toEqual(['expired', 'expired', 'expired', 'active']);
    const [row] =
      await hub.sql`select last_used_at > now() - interval '1 hour' as fresh from api_keys where prefix = ${prefixOf(active)}`;
    expect(row?.fresh).toBe(true);
    // An API key is revoked by its owners, never expired.
    await hub.sql`update api_keys set created_at = now() - interval '1000 days', last_used_at = now() - interval '900 days' where id = ${beta.keyId}`;
    expect((await projects(beta.key)).status).toBe(200);
  });

  it('revokes every CLI credential of a person who changes their password, in each organization, with their events', async () => {
    const signedIn = await store.signIn('ada@example.com', PASSWORD, '127.0.0.1');
    if (!signedIn.ok) throw new Error('sign-in failed');
    const inAlpha = await login(ada, alpha.org);
    const inBeta = await login(ada, beta.org);
    const miaToken = await login(mia, alpha.org);
    // A `hub login` approved in the session before the change, not yet collected (a stolen session's).
    const pending = await oauthForm(hub, '/oauth/device_authorization', {
      client_id: 'hub-cli',
      hostname: 'elsewhere',
    });
    expect(await store.approveDevice(ada, pending.body.user_code, orgIds[alpha.org] as string, '127.0.0.1')).toBe(
      'approved',
    );
    const before = new Date(Date.now() - 1_000);
    for (const token of [inAlpha, inBeta]) expect((await projects(token)).status).toBe(200);
    expect(
      await store.changePassword(signedIn.sessionSecret, PASSWORD, 'a brand new long passphrase', '127.0.0.1'),
    ).toBe('changed');
    const collected = await oauthForm(hub, '/oauth/token', {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: pending.body.device_code,
      client_id: 'hub-cli',
    });
    expect([collected.status, collected.body.error]).toEqual([400, 'access_denied']);
    for (const token of [inAlpha, inBeta]) expectProblem(await projects(token), 401, 'unauthorized');
    // Another person's credential, and the organizations' API keys, are untouched.
    expect((await projects(miaToken)).status).toBe(200);
    expect((await projects(alpha.key)).status).toBe(200);
    expect((await store.cliCredentials(ada)).every((row) => row.status === 'revoked')).toBe(true);
    const events = await hub.sql<{ organizationId: string; kind: string; actorKind: string; prefix: string | null }[]>`
      select organization_id as "organizationId", kind, actor_kind as "actorKind", subject->>'prefix' as prefix
      from audit_events where account_id = ${ada} and at >= ${before}
        and kind in ('cli_credential.revoked', 'account.password_changed')`;
    const seen = (kind: string, org: string, prefix: string | null = null) =>
      events.some(
        (event) =>
          event.kind === kind &&
          event.organizationId === orgIds[org] &&
          event.actorKind === 'account' &&
          (prefix === null || event.prefix === prefix),
      );
    expect(seen('cli_credential.revoked', alpha.org, prefixOf(inAlpha))).toBe(true);
    expect(seen('cli_credential.revoked', beta.org, prefixOf(inBeta))).toBe(true);
    expect(seen('account.password_changed', alpha.org)).toBe(true);
    expect(seen('account.password_changed', beta.org)).toBe(true);
  });
});

describe('CLI credential and stream settings', () => {
  it('expire CLI credentials after 90 days unused and 365 days in all, and re-check streams every 5 s, by default', () => {
    const config = readConfig({});
    expect(config.cliCredentials).toEqual({ idleDays: 90, lifetimeDays: 365 });
    expect(config.streamRecheckMs).toBe(5_000);
  });
  it('reads HUB_CLI_CREDENTIAL_IDLE_DAYS, HUB_CLI_CREDENTIAL_LIFETIME_DAYS and HUB_STREAM_RECHECK_MS', () => {
    const config = readConfig({
      HUB_CLI_CREDENTIAL_IDLE_DAYS: '7',
      HUB_CLI_CREDENTIAL_LIFETIME_DAYS: '30',
      HUB_STREAM_RECHECK_MS: '250',
    });
    expect(config.cliCredentials).toEqual({ idleDays: 7, lifetimeDays: 30 });
    expect(config.streamRecheckMs).toBe(250);
  });
  it.each(['0', '-1', '1.5', 'forever', '36501'])('refuses HUB_CLI_CREDENTIAL_LIFETIME_DAYS=%j', (raw) => {
    expect(() => readConfig({ HUB_CLI_CREDENTIAL_LIFETIME_DAYS: raw })).toThrow(
      /HUB_CLI_CREDENTIAL_LIFETIME_DAYS must be a whole number of days from 1 to 36500/,
    );
    expect(() => readConfig({ HUB_CLI_CREDENTIAL_IDLE_DAYS: raw })).toThrow(/HUB_CLI_CREDENTIAL_IDLE_DAYS must be/);
  });
  it.each(['0', '99', '60001', 'soon'])('refuses HUB_STREAM_RECHECK_MS=%j', (raw) => {
    expect(() => readConfig({ HUB_STREAM_RECHECK_MS: raw })).toThrow(/HUB_STREAM_RECHECK_MS must be/);
  });
});
