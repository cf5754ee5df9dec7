// PgBouncer in transaction pooling between hubs and PostgreSQL (issue 29): the hub keeps no
// session state between transactions (HUB_DATABASE_POOLING=transaction: no named prepared
// statements, no startup parameters), finds at start that LISTEN does not hold through the
// pooler and polls instead (and says so), or LISTENs on HUB_LISTEN_DATABASE_URL, a direct
// connection. A dispatch on one hub reaches a daemon long-polling on another either way.
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, setUp } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { freshDatabase, startHub, type RunningHub } from './support/hub.js';
import { startPgBouncer, type Bouncer } from './support/pgbouncer.js';
import { fixTestsConfiguration } from './support/documents.js';

describe('hubs through PgBouncer in transaction pooling', () => {
  let bouncer: Bouncer;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let polling: RunningHub;
  let other: RunningHub;
  let listening: RunningHub;

  beforeAll(async () => {
    [bouncer, database] = await Promise.all([startPgBouncer(), freshDatabase()]);
    const env = { HUB_DATABASE_POOLING: 'transaction', HUB_LOG_LEVEL: 'info' };
    const through = bouncer.through(database.url);
    // One first: it migrates (under its transaction's advisory lock, which the pooler keeps).
    polling = await startHub({ databaseUrl: through, env });
    [other, listening] = await Promise.all([
      startHub({ databaseUrl: through, env }),
      startHub({ databaseUrl: through, env: { ...env, HUB_LISTEN_DATABASE_URL: database.url } }),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([polling, other, listening].map((hub) => hub?.stop()));
    await bouncer?.stop();
    await database?.drop();
  });

  it('runs on deploy/pgbouncer.ini: transaction pooling, its limits, and a port of its own', async () => {
    const consoleUrl = new URL(bouncer.through(database.url));
    consoleUrl.pathname = '/pgbouncer';
    // PgBouncer's admin console answers simple queries only (so no type look-up either).
    const admin = postgres(consoleUrl.toString(), { max: 1, fetch_types: false, onnotice: () => {} });
    try {
      const rows = (await admin.unsafe('SHOW CONFIG').simple()) as unknown as { key: string; value: string }[];
      const config = Object.fromEntries(rows.map((row) => [row.key, row.value]));
      expect(config).toMatchObject({
        pool_mode: 'transaction',
        max_client_conn: '1000',
        default_pool_size: '20',
        auth_type: 'scram-sha-256',
        listen_port: String(bouncer.port),
      });
    } finally {
      await admin.end();
    }
  });

  it('says how it hears notifications: polling through the pooler, LISTEN on HUB_LISTEN_DATABASE_URL', () => {
    expect(polling.output()).toContain('no NOTIFY came back through DATABASE_URL');
    expect(polling.output()).toContain('polling every 1000 ms');
    expect(listening.output()).toContain('notifications: LISTEN on HUB_LISTEN_DATABASE_URL');
    expect(listening.output()).not.toContain('no NOTIFY came back');
  });

  it('serves the API: an organization, an install, an enrollment, a dispatch and its run', async () => {
    const ctx = await setUp(polling);
    const daemon = await TestDaemon.enroll(other, ctx.key, 'dev-box');
    expect((await daemon.heartbeat()).status).toBe(200);
    const installed = await call(polling, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: ctx.project, yaml: fixTestsConfiguration },
    });
    expect(installed.status, installed.text).toBe(201);
    expect((await call(other, 'GET', '/api/v1/projects', { token: ctx.key })).body.projects).toHaveLength(1);

    for (const [name, waiting] of [
      ['polling', other],
      ['listening', listening],
    ] as const) {
      // The daemon long-polls one hub; the run is dispatched on another.
      const poll = daemon.at(waiting).signed('GET', '/api/v1/daemon/assignments/next?wait=25');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const began = performance.now();
      const dispatched = await call(polling, 'POST', '/api/v1/manual-runs', {
        token: ctx.key,
        body: { projectSlug: ctx.project, trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: randomUUID() },
      });
      expect(dispatched.status, dispatched.text).toBe(200);
      const answer = await poll;
      expect(answer.status, `${name}: ${answer.text}`).toBe(200);
      process.stdout.write(
        `pgbouncer.test: ${name}: dispatch to assignment ${Math.round(performance.now() - began)} ms\n`,
      );
      const executionId = answer.body.assignment.executionId as string;
      expect((await daemon.at(waiting).report(executionId, 'running')).status).toBeLessThan(300);
      expect((await daemon.at(waiting).report(executionId, 'succeeded', { exitCode: 0 })).status).toBeLessThan(300);
      const run = await call(polling, 'GET', `/api/v1/runs/${dispatched.body.triggerRunId as string}`, {
        token: ctx.key,
      });
      expect(run.body.status).toBe('succeeded');
    }
  });
});
