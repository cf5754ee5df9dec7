// The rolling upgrade (issue 29): three hubs of the previous release (the commit before the newest
// migration, support/old-release.ts) behind HAProxy (deploy/haproxy.cfg) under a steady load of
// validates, installs, dispatches and a daemon's long-polls, heartbeats and reports. Main's
// `hub-server migrate` runs while they serve; then each old instance in turn is taken out of
// HAProxy's rotation (admin socket), stopped, replaced on its port by main's hub and put back, the
// last old instance last: until then old instances serve on the migrated schema, their writes
// going through its new triggers. No request fails at the client, and every write the hubs
// acknowledged is in the database.
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELEASE } from '../src/release.js';
import { call, setUp, type Answer } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { startHaproxy, type RunningHaproxy } from './support/haproxy.js';
import { postgresBinaries, startCluster, type Cluster } from './support/cluster.js';
import { connect, startHub, type RunningHub } from './support/hub.js';
import { oldRelease, type OldRelease } from './support/old-release.js';
import { eventually } from './support/poll.js';
import { freePort } from './support/prometheus.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { fixTestsConfiguration } from './support/documents.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `hub-server migrate` of main's build, as its own step; its output. */
function migrateStep(databaseUrl: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [fileURLToPath(new URL('../dist/main.js', import.meta.url)), 'migrate'], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('a rolling upgrade from the previous release to main, under load', () => {
  let old: OldRelease;
  let database: Cluster | undefined;
  let haproxy: RunningHaproxy | undefined;
  let receiver: WebhookReceiver | undefined;
  const hubs: RunningHub[] = [];
  const ports: number[] = [];
  const adminToken = `hub_admin_test_${randomBytes(16).toString('hex')}`;
  const env = (port: number) => ({
    PORT: String(port),
    HUB_ADMIN_TOKEN: adminToken,
    HUB_TRUST_PROXY: 'loopback',
    HUB_LOG_LEVEL: 'info',
  });
  // Main's instances find the schema migrated by the step, and may send to the test's receiver.
  const mainEnv = (port: number) => ({
    ...env(port),
    HUB_DRAIN_SECONDS: '4',
    HUB_MIGRATE_ON_START: 'false',
    HUB_WEBHOOK_ALLOW_PRIVATE: 'true',
  });

  beforeAll(async () => {
    old = await oldRelease();
    // A cluster of its own: three instances of each release hold up to 45 connections, which the
    // machine's PostgreSQL (100) does not have to spare while other tests and benches run on it.
    const bin = postgresBinaries();
    if (bin === undefined)
      throw new Error('no PostgreSQL binaries (initdb, pg_ctl) for the drill to start a cluster with');
    database = await startCluster(bin);
    for (let i = 0; i < 3; i++) {
      ports.push(await freePort());
      // One at a time: the first migrates (to the old release's schema).
      hubs.push(await startHub({ main: old.main, databaseUrl: database.url, env: env(ports[i] as number) }));
    }
    haproxy = await startHaproxy(ports.map((port) => `127.0.0.1:${port}`) as [string, string, string]);
    const front = haproxy;
    await eventually(
      () => call(front, 'GET', '/readyz').catch(() => ({ status: 0 })),
      (answer) => answer.status === 200,
      'HAProxy in front of the old hubs',
    );
    receiver = await WebhookReceiver.start();
    // The first build of the old release takes a minute or two; later runs find it in the cache.
  }, 600_000);
  afterAll(async () => {
    await haproxy?.stop();
    await Promise.all(hubs.map((hub) => hub.stop()));
    await receiver?.close();
    await database?.destroy();
  });

  it('fails no request, keeps every acknowledged write, and old instances work on the migrated schema', async () => {
    const proxy = haproxy as RunningHaproxy;
    const front = { url: proxy.url, adminToken };
    const url = (database as Cluster).url;
    const sql = connect(url);
    const migrations = async () =>
      sql<{ name: string; release: string | null }[]>`select name, release from schema_migrations order by name`;
    // The old release's schema: no 016, and no release column yet (main's migrate adds it).
    const before = await sql<{ name: string }[]>`select name from schema_migrations order by name`;
    expect(before.map((row) => row.name)).toContain('015_github_link.sql');
    expect(before.map((row) => row.name)).not.toContain('016_webhooks.sql');

    const ctx = await setUp(front);
    const daemon = await TestDaemon.enroll(front, ctx.key, 'dev-box');
    const failures: string[] = [];
    const versions: number[] = [];
    const runs: string[] = [];
    const completed: string[] = [];
    let validates = 0;
    let heartbeats = 0;
    let peakConnections = 0;
    let loading = true;
    const record = (what: string, answer: Answer) =>
      failures.push(`${what}: ${answer.status} ${answer.text.slice(0, 200)}`);
    const loop = async (work: () => Promise<unknown>) => {
      while (loading)
        await work().catch((error: Error) =>
          failures.push(`network: ${error.message} (${String((error.cause as Error | undefined)?.message)})`),
        );
    };
    const install = async (hub: { url: string }) => {
      const answer = await call(hub, 'POST', '/api/v1/configurations/install', {
        token: ctx.key,
        body: { projectSlug: ctx.project, yaml: fixTestsConfiguration },
      });
      if (answer.status === 201) versions.push(answer.body.version as number);
      else record('install', answer);
      return answer;
    };
    const dispatch = async (hub: { url: string }) => {
      const answer = await call(hub, 'POST', '/api/v1/manual-runs', {
        token: ctx.key,
        body: { projectSlug: ctx.project, trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: randomUUID() },
      });
      if (answer.status === 200) runs.push(answer.body.triggerRunId as string);
      else record('dispatch', answer);
      return answer;
    };
    const load = Promise.all([
      loop(async () => {
        const answer = await call(front, 'POST', '/api/v1/configurations/validate', {
          token: ctx.key,
          body: { projectSlug: ctx.project, yaml: fixTestsConfiguration },
        });
        if (answer.status === 200) validates++;
        else record('validate', answer);
      }),
      loop(() => install(front)),
      loop(async () => (versions.length === 0 ? sleep(50) : dispatch(front))),
      loop(async () => {
        const answer = await daemon.heartbeat();
        if (answer.status === 200) heartbeats++;
        else record('heartbeat', answer);
        await sleep(300);
      }),
      // The most connections the hubs hold at once (for the cluster's max_connections, 60).
      loop(async () => {
        const [row] = await sql<{ count: number }[]>`
          select count(*)::int as count from pg_stat_activity where backend_type = 'client backend'`;
        peakConnections = Math.max(peakConnections, row?.count ?? 0);
        await sleep(500);
      }),
      // The daemon long-polls for work and runs each assignment to success at once.
      loop(async () => {
        const next = await daemon.next(2);
        if (next.status === 204) return sleep(100);
        if (next.status !== 200) return record('long-poll', next);
        const { executionId, triggerRunId } = next.body.assignment as { executionId: string; triggerRunId: string };
        const running = await daemon.report(executionId, 'running');
        if (running.status !== 200) return record('report running', running);
        const succeeded = await daemon.report(executionId, 'succeeded', { exitCode: 0 });
        if (succeeded.status !== 200) return record('report succeeded', succeeded);
        completed.push(triggerRunId);
      }),
    ]);
    try {
      await sleep(2_000);
      // The expand step, while the old release serves.
      const step = await migrateStep(url);
      expect(step.code, step.output).toBe(0);
      expect(step.output).toContain('016_webhooks.sql');

      // What the last old instance wrote on the migrated schema, with an endpoint listening.
      let oldVersion = 0;
      let oldRun = '';
      for (let i = 0; i < 3; i++) {
        const server = `hub${i + 1}`;
        // Out of rotation first: the old release has no drain, and closes its idle keep-alive
        // connections as it stops, under a request HAProxy may be sending on one.
        expect(await proxy.command(`disable server hubs/${server}`)).toBe('\n');
        expect(await proxy.status(server)).toBe('MAINT');
        // A request HAProxy sent just before is answered: the old release stops gracefully.
        await sleep(1_000);
        const leaving = hubs[i] as RunningHub;
        expect(await leaving.stop()).toBe(0);
        expect(leaving.output()).toContain('"stopping"');
        hubs[i] = await startHub({ databaseUrl: url, env: mainEnv(ports[i] as number) });
        await proxy.command(`enable server hubs/${server}`);
        await eventually(
          () => proxy.status(server),
          (status) => status === 'UP',
          `${server} back in rotation`,
        );

        if (i === 0) {
          // Main's first instance: an endpoint for the organization (main's API), then writes
          // straight to the last old instance, which the migration's triggers turn into events.
          const keys = await call(hubs[0] as RunningHub, 'POST', `/api/admin/v1/organizations/${ctx.org}/api-keys`, {
            token: adminToken,
            body: { name: 'webhooks', scopes: ['webhooks:manage'] },
          });
          expect(keys.status, keys.text).toBe(201);
          const endpoint = await call(hubs[0] as RunningHub, 'POST', '/api/v1/webhook-endpoints', {
            token: keys.body.secret,
            body: {
              url: (receiver as WebhookReceiver).url,
              events: ['configuration.installed', 'run.started', 'run.completed'],
            },
          });
          expect(endpoint.status, endpoint.text).toBe(201);
          (receiver as WebhookReceiver).secret(endpoint.body.secret as string);
          const lastOld = hubs[2] as RunningHub;
          const installed = await install(lastOld);
          expect(installed.status, installed.text).toBe(201);
          oldVersion = installed.body.version as number;
          const dispatched = await dispatch(lastOld);
          expect(dispatched.status, dispatched.text).toBe(200);
          oldRun = dispatched.body.triggerRunId as string;
        }
      }
      // A little load on main alone, then the end.
      await sleep(1_000);
      loading = false;
      await load;

      expect(failures).toEqual([]);
      expect(validates).toBeGreaterThan(0);
      expect(heartbeats).toBeGreaterThan(0);
      expect(completed.length).toBeGreaterThan(0);
      const stored = await sql<{ version: number }[]>`
        select r.version from configuration_revisions r join projects p on p.id = r.project_id
        join organizations o on o.id = p.organization_id where o.slug = ${ctx.org} order by r.version`;
      // Versions without gaps, every acknowledged one among them, and no other.
      expect(stored.map((row) => row.version)).toEqual(stored.map((_, index) => index + 1));
      expect(new Set(versions)).toEqual(new Set(stored.map((row) => row.version)));
      expect(versions.length).toBe(stored.length);
      const found = await sql<{ id: string }[]>`select id from trigger_runs where id = any(${runs}::uuid[])`;
      expect(found.length).toBe(runs.length);
      const finished = await sql<{ status: string }[]>`
        select status from trigger_runs where id = any(${completed}::uuid[])`;
      expect(finished.map((row) => row.status)).toEqual(completed.map(() => 'succeeded'));
      // The old instance's install and dispatch went through 016's triggers (on configuration_revisions,
      // and at commit on trigger_runs), and main's workers delivered the events.
      const events = await sql<{ type: string }[]>`
        select type from webhook_events
        where (type = 'configuration.installed' and (data ->> 'version')::int = ${oldVersion}
          and data ->> 'projectSlug' = ${ctx.project})
          or (type = 'run.started' and data ->> 'triggerRunId' = ${oldRun}) order by type`;
      expect(events.map((row) => row.type)).toEqual(['configuration.installed', 'run.started']);
      const delivered = (receiver as WebhookReceiver).received;
      await eventually(
        async () => [
          delivered.some(
            (each) => each.event.type === 'configuration.installed' && each.event.data.version === oldVersion,
          ),
          delivered.some((each) => each.event.type === 'run.started' && each.event.data.triggerRunId === oldRun),
        ],
        (found) => found.every(Boolean),
        "the old instance's events delivered",
      );
      expect((receiver as WebhookReceiver).refused).toEqual([]);
      // Applied by main's step (its release recorded), the old release's own before it (none recorded).
      const applied = await migrations();
      const fromMain = applied.filter((row) => row.name >= '016');
      expect(fromMain.map((row) => row.name)).toContain('016_webhooks.sql');
      expect(fromMain.map((row) => row.release)).toEqual(fromMain.map(() => RELEASE));
      expect(applied.filter((row) => row.name < '016').map((row) => row.release)).toEqual(
        applied.filter((row) => row.name < '016').map(() => null),
      );
      process.stdout.write(
        `rolling-upgrade.test: ${validates} validates, ${versions.length} installs, ${runs.length} dispatches, ` +
          `${completed.length} runs completed by the daemon, ${heartbeats} heartbeats, ${failures.length} failed, ` +
          `${peakConnections} database connections at most, ` +
          `old release ${old.commit.slice(0, 12)} replaced by main one instance at a time\n`,
      );
    } finally {
      loading = false;
      await load.catch(() => undefined);
      await sql.end();
    }
  }, 240_000);
});
