// A login that ended (issue 24): `hub` as a child process against a real hub, with the credential
// `hub login` stored once it has expired or been revoked, says "your login expired: run hub login"
// instead of a bare 401, while a key given with HUB_API_KEY keeps the hub's own 401. A followed
// run's stream that the hub ends (its credential revoked) is said and exits non-zero, not hung.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dashboardStore } from '../../server/src/dashboard/store.js';
import { call, setUp } from '../../server/test/support/client.js';
import { cliLogin, manualConfiguration, startedRun } from '../../server/test/support/cli-login.js';
import { TestDaemon } from '../../server/test/support/daemon.js';
import { hubOn } from '../../server/test/support/hub.js';
import { saveCredential } from '../src/credentials.js';
import { hub as runHub, start, type Running } from './support/cli.js';

const CONFIGURATION = manualConfiguration('dev-box');
const EXPIRED = /^hub: your login expired: run hub login /;

describe('hub with a login that ended', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let store: ReturnType<typeof dashboardStore>;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let daemon: TestDaemon;
  let ada: string;
  let organizationId: string;
  let root: string;
  let env: Record<string, string>;
  let deliveries = 0;

  beforeAll(async () => {
    hub = await hubOn('external', { HUB_DEVICE_POLL_INTERVAL_SECONDS: '1', HUB_STREAM_RECHECK_MS: '200' });
    store = dashboardStore(hub.sql);
    ctx = await setUp(hub);
    const [org] = await hub.sql`select id from organizations where slug = ${ctx.org}`;
    organizationId = org?.id as string;
    const [account] =
      await hub.sql`insert into accounts (email, name, password_hash) values ('ada@example.com', 'Ada', 'scrypt$x') returning id`;
    ada = account?.id as string;
    await hub.sql`insert into organization_members (organization_id, account_id, role) values (${organizationId}, ${ada}, 'owner')`;
    daemon = (await TestDaemon.enroll(hub, ctx.key, 'dev-box')).keepAlive(300);
    await daemon.heartbeat();
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: ctx.project, yaml: CONFIGURATION },
    });
    expect(installed.status, installed.text).toBe(201);
  }, 120_000);

  afterAll(async () => {
    daemon?.stop();
    await hub?.close();
  });

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'hub-login-ended-'));
    env = { HUB_CONFIG_DIR: join(root, 'config') };
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** `hub login`'s grant approved by Ada, its credential stored as `hub login` stores it. */
  const loggedIn = async () => {
    const secret = await cliLogin(hub, store, ada, organizationId);
    await saveCredential(env.HUB_CONFIG_DIR as string, hub.url, secret, 'cli', { activate: true });
    return secret;
  };
  const revoke = async (token: string) => {
    const credential = (await store.cliCredentials(ada)).find((row) => row.prefix === token.slice(0, 16));
    expect(await store.revokeCliCredential(ada, credential?.id as string)).toBe('revoked');
  };
  const apiKey = async () => {
    const key = await call(hub, 'POST', `/api/admin/v1/organizations/${ctx.org}/api-keys`, {
      token: hub.adminToken,
      body: { name: 'ci', scopes: ['projects:read', 'runs:read'] },
    });
    expect(key.status, key.text).toBe(201);
    return { secret: key.body.secret as string, id: key.body.id as string };
  };
  const revokeKey = async (id: string) =>
    expect(
      (
        await call(hub, 'POST', `/api/admin/v1/organizations/${ctx.org}/api-keys/${id}/revoke`, {
          token: hub.adminToken,
        })
      ).status,
    ).toBe(200);

  it('says "your login expired: run hub login" for a stored login past its lifetime or revoked', async () => {
    const token = await loggedIn();
    const fine = await runHub(['projects'], { env });
    expect(fine.code, fine.stderr).toBe(0);
    await hub.sql`update api_keys set created_at = now() - interval '400 days' where prefix = ${token.slice(0, 16)}`;
    const expired = await runHub(['projects'], { env });
    expect(expired.code).toBe(1);
    expect(expired.stderr).toMatch(EXPIRED);
    expect(expired.stderr).toContain(`run hub login ${hub.url}`);
    expect(expired.stderr).toContain('HTTP 401');
    expect(expired.stderr).not.toContain(token);

    const revoked = await loggedIn();
    await revoke(revoked);
    const refused = await runHub(['runs'], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(EXPIRED);
  });

  it("keeps the hub's own 401 for a key given with HUB_API_KEY", async () => {
    await loggedIn();
    const key = await apiKey();
    await revokeKey(key.id);
    const refused = await runHub(['projects'], { env: { ...env, HUB_API_KEY: key.secret } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^hub: Authentication required: /);
    expect(refused.stderr).not.toContain('login expired');
  });

  /** A run whose execution the daemon took and started, with a line of output. */
  const started = () => startedRun(hub, ctx.key, ctx.project, daemon, `ended-${++deliveries}`);
  const following = async (follow: Running) => {
    const deadline = Date.now() + 20_000;
    while (!follow.output().stdout.includes('working')) {
      if (Date.now() > deadline) throw new Error(`no output; ${JSON.stringify(follow.output())}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('ends `hub logs --follow` with the reason and a failure once the stored login is revoked', async () => {
    const token = await loggedIn();
    const { runId, executionId } = await started();
    const follow = start(['logs', runId, hub.url, '--follow'], { env });
    await following(follow);
    await revoke(token);
    expect(await follow.exited).toBe(1);
    const { stderr } = follow.output();
    expect(stderr).toMatch(/^hub: your login expired: run hub login /m);
    expect(stderr).toContain('credential_revoked');
    await daemon.report(executionId, 'succeeded', { exitCode: 0 });
  });

  it('ends `hub logs --follow` with the reason for a revoked HUB_API_KEY', async () => {
    const key = await apiKey();
    const { runId, executionId } = await started();
    const follow = start(['logs', runId, hub.url, '--follow'], { env: { ...env, HUB_API_KEY: key.secret } });
    await following(follow);
    await revokeKey(key.id);
    expect(await follow.exited).toBe(1);
    const { stderr } = follow.output();
    expect(stderr).toContain('hub: The hub ended the output stream: the credential was revoked (credential_revoked).');
    expect(stderr).not.toContain('login expired');
    await daemon.report(executionId, 'succeeded', { exitCode: 0 });
  });
});
