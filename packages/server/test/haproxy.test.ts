// Three hubs behind HAProxy (deploy/haproxy.cfg, as it is), each restarted in turn under a steady
// load of validates, installs, dispatches and a run's output (issue 29's first drill): SIGTERM
// drains the instance (/readyz 503 while it serves on, its streams end), HAProxy's checks take it
// out of rotation, it stops, starts again on its port and comes back. No request fails at the
// client, every write the hub acknowledged is in the database (versions without gaps, every
// dispatched run), and a reader of the output stream, resuming with Last-Event-ID each time a
// stream ends, gets every line the daemon sent exactly once, in order.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, setUp } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { startHaproxy, type RunningHaproxy } from './support/haproxy.js';
import { connect, freshDatabase, startHub, type RunningHub } from './support/hub.js';
import { eventually } from './support/poll.js';
import { freePort } from './support/prometheus.js';
import { openStream } from './support/sse.js';
import { fixTestsConfiguration } from './support/documents.js';

describe('three hubs behind HAProxy, restarted one at a time under load', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  const hubs: RunningHub[] = [];
  const ports: number[] = [];
  let haproxy: RunningHaproxy | undefined;
  let front: { url: string; adminToken: string };
  const adminToken = `hub_admin_test_${randomBytes(16).toString('hex')}`;
  const env = (port: number) => ({
    PORT: String(port),
    HUB_ADMIN_TOKEN: adminToken,
    HUB_DRAIN_SECONDS: '4',
    HUB_TRUST_PROXY: 'loopback',
    HUB_LOG_LEVEL: 'info',
  });

  beforeAll(async () => {
    database = await freshDatabase();
    for (let i = 0; i < 3; i++) {
      ports.push(await freePort());
      // One at a time: the first migrates.
      hubs.push(await startHub({ databaseUrl: database.url, env: env(ports[i] as number) }));
    }
    haproxy = await startHaproxy([`127.0.0.1:${ports[0]}`, `127.0.0.1:${ports[1]}`, `127.0.0.1:${ports[2]}`]);
    front = { url: haproxy.url, adminToken };
    await eventually(
      () => call(front, 'GET', '/readyz').catch(() => ({ status: 0 })),
      (answer) => answer.status === 200,
      'HAProxy in front of the hubs',
    );
  }, 120_000);
  afterAll(async () => {
    await haproxy?.stop();
    await Promise.all(hubs.map((hub) => hub.stop()));
    await database?.drop();
  });

  it('fails no request, keeps every acknowledged install and dispatch, and resumes streams without a lost or repeated line', async () => {
    const ctx = await setUp(front);
    const daemon = (await TestDaemon.enroll(front, ctx.key, 'dev-box')).keepAlive(300);
    try {
      expect((await daemon.heartbeat()).status).toBe(200);
      // The run whose output is written and read throughout, taken before the load queues others.
      const installed = await call(front, 'POST', '/api/v1/configurations/install', {
        token: ctx.key,
        body: { projectSlug: ctx.project, yaml: fixTestsConfiguration },
      });
      expect(installed.status, installed.text).toBe(201);
      const dispatched = await call(front, 'POST', '/api/v1/manual-runs', {
        token: ctx.key,
        body: { projectSlug: ctx.project, trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: randomUUID() },
      });
      expect(dispatched.status, dispatched.text).toBe(200);
      const offered = await daemon.next(5);
      const executionId = offered.body.assignment.executionId as string;
      expect((await daemon.report(executionId, 'running')).status).toBe(200);
      const failures: string[] = [];
      const versions: number[] = [installed.body.version as number];
      const runs: string[] = [dispatched.body.triggerRunId as string];
      let validates = 0;
      let loading = true;
      const record = (what: string, status: number, text: string) =>
        failures.push(`${what}: ${status} ${text.slice(0, 200)}`);
      const loop = async (work: () => Promise<void>) => {
        while (loading)
          await work().catch((error: Error) =>
            failures.push(`network: ${error.message} (${String((error.cause as Error | undefined)?.message)})`),
          );
      };
      let written = 0;
      const reading = follow(`/api/v1/executions/${executionId}/output`, ctx.key, failures);
      const load = Promise.all([
        loop(async () => {
          const chunks = [{ seq: written, stream: 'stdout', at: new Date().toISOString(), text: `line ${written}\n` }];
          const answer = await daemon.signed('POST', `/api/v1/daemon/executions/${executionId}/output`, { chunks });
          if (answer.status === 200) written++;
          else record('output', answer.status, answer.text);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }),
        loop(async () => {
          const answer = await call(front, 'POST', '/api/v1/configurations/validate', {
            token: ctx.key,
            body: { projectSlug: ctx.project, yaml: fixTestsConfiguration },
          });
          if (answer.status === 200) validates++;
          else record('validate', answer.status, answer.text);
        }),
        loop(async () => {
          const answer = await call(front, 'POST', '/api/v1/configurations/install', {
            token: ctx.key,
            body: { projectSlug: ctx.project, yaml: fixTestsConfiguration },
          });
          if (answer.status === 201) versions.push(answer.body.version as number);
          else record('install', answer.status, answer.text);
        }),
        loop(async () => {
          if (versions.length === 0) return new Promise((resolve) => setTimeout(resolve, 50));
          const answer = await call(front, 'POST', '/api/v1/manual-runs', {
            token: ctx.key,
            body: { projectSlug: ctx.project, trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: randomUUID() },
          });
          if (answer.status === 200) runs.push(answer.body.triggerRunId as string);
          else record('dispatch', answer.status, answer.text);
        }),
      ]);
      for (let i = 0; i < 3; i++) {
        const hub = hubs[i] as RunningHub;
        hub.process.kill('SIGTERM');
        expect(await hub.stop()).toBe(0);
        expect(hub.output()).toContain('draining');
        hubs[i] = await startHub({ databaseUrl: database.url, env: env(ports[i] as number) });
        // Back in rotation (HAProxy checks it every second) before the next one goes.
        await new Promise((resolve) => setTimeout(resolve, 2_500));
      }
      loading = false;
      await load;
      expect((await daemon.report(executionId, 'succeeded', { exitCode: 0 })).status).toBe(200);
      const read = await reading;
      expect(failures).toEqual([]);
      expect(read.seqs).toEqual(Array.from({ length: written }, (_, seq) => seq));
      expect(validates).toBeGreaterThan(0);
      expect(runs.length).toBeGreaterThan(0);
      const sql = connect(database.url);
      try {
        const stored = await sql<{ version: number }[]>`
          select r.version from configuration_revisions r join projects p on p.id = r.project_id
          join organizations o on o.id = p.organization_id where o.slug = ${ctx.org} order by r.version`;
        // Versions without gaps, and every acknowledged one among them.
        expect(stored.map((row) => row.version)).toEqual(stored.map((_, index) => index + 1));
        expect(new Set(stored.map((row) => row.version))).toEqual(
          new Set([...versions, ...stored.map((row) => row.version)]),
        );
        expect(stored.length).toBe(versions.length);
        const found = await sql<{ id: string }[]>`select id from trigger_runs where id = any(${runs}::uuid[])`;
        expect(found.length).toBe(runs.length);
      } finally {
        await sql.end();
      }
      process.stdout.write(
        `haproxy.test: ${validates} validates, ${versions.length} installs, ${runs.length} dispatches, ${written} output lines read over ${read.streams} streams, ${failures.length} failed, across 3 restarts\n`,
      );
    } finally {
      daemon.stop();
    }
  }, 180_000);

  /**
   * Reads an execution's output stream through HAProxy as EventSource would: when a stream ends
   * before its `end` event (its hub drains), it waits the stream's `retry` and opens another with
   * the last id received. The seqs of every output event, as they came, and how many streams.
   */
  async function follow(path: string, token: string, failures: string[]) {
    const seqs: number[] = [];
    let lastEventId: string | undefined;
    for (let streams = 1; ; streams++) {
      const stream = await openStream(front, path, token, lastEventId === undefined ? {} : { lastEventId });
      if (stream.status !== 200) failures.push(`stream: ${stream.status}`);
      await stream.ended;
      for (const event of stream.events) {
        if (event.event === 'end') return { seqs, streams };
        if (event.event !== 'output') continue;
        seqs.push((JSON.parse(event.data) as { seq: number }).seq);
        lastEventId = event.id;
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  }
});
