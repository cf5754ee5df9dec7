// Outbound webhooks (issue 28; DECISIONS.md, Outbound webhooks) on real hubs: a receiver on
// loopback verifies every delivery with the `standardwebhooks` package; runs, installs and daemons
// gone offline arrive; retries keep the webhook-id; a hub killed between attempts leaves the event
// to another; a receiver that never answers delays no other; a rolled-back install emits nothing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectProblem, setUp } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { connect, freshDatabase, hubOn, startHub } from './support/hub.js';
import { eventually } from './support/poll.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { RetentionRepository } from '../src/retention/policy.js';
import { fixTestsConfiguration } from './support/documents.js';

const SCOPES = [
  'projects:read',
  'configuration:install',
  'daemons:enroll',
  'runs:dispatch',
  'runs:read',
  'webhooks:manage',
];
const ENV = {
  HUB_WEBHOOK_ALLOW_PRIVATE: 'true',
  HUB_WEBHOOK_RETRY_DELAYS_MS: '200,200,200',
  HUB_WEBHOOK_TIMEOUT_MS: '20000',
  HUB_DAEMON_OFFLINE_AFTER_MS: '1500',
};

type Hub = Awaited<ReturnType<typeof hubOn>>;

async function scrape(hub: Hub): Promise<string> {
  const answer = await call(hub, 'GET', '/metrics');
  expect(answer.status).toBe(200);
  return answer.text;
}

/** A counter's value by its `result` label in the text format (0 when absent). */
function metric(text: string, name: string, result: string): number {
  const line = text.split('\n').find((each) => each.startsWith(`${name}{result="${result}"} `));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
}
type Org = Awaited<ReturnType<typeof setUp>>;

/** An organization whose key manages webhooks, with the daemon its configuration names enrolled. */
async function organization(hub: Hub): Promise<Org & { daemon: TestDaemon }> {
  const org = await setUp(hub, { scopes: SCOPES });
  const daemon = await TestDaemon.enroll(hub, org.key, 'dev-box');
  return { ...org, daemon };
}

async function endpoint(hub: Hub, org: Org, receiver: WebhookReceiver, events: string[]) {
  const answer = await call(hub, 'POST', '/api/v1/webhook-endpoints', {
    token: org.key,
    body: { url: receiver.url, events, description: 'test receiver' },
  });
  expect(answer.status, answer.text).toBe(201);
  receiver.secret(answer.body.secret as string);
  return answer.body as { id: string; secret: string };
}

async function install(hub: Hub, org: Org) {
  const answer = await call(hub, 'POST', '/api/v1/configurations/install', {
    token: org.key,
    body: { projectSlug: org.project, yaml: fixTestsConfiguration },
  });
  expect(answer.status, answer.text).toBe(201);
  return answer.body as { versionId: string; version: number };
}

describe('outbound webhooks (external PostgreSQL)', () => {
  let hub: Hub;
  const receivers: WebhookReceiver[] = [];
  const receiver = async (...args: Parameters<typeof WebhookReceiver.start>) => {
    const made = await WebhookReceiver.start(...args);
    receivers.push(made);
    return made;
  };

  beforeAll(async () => {
    hub = await hubOn('external', ENV);
  }, 120_000);
  afterAll(async () => {
    for (const each of receivers) expect(each.refused).toEqual([]);
    await Promise.all(receivers.map((each) => each.close()));
    await hub?.close();
  });

  it('registers endpoints for keys with webhooks:manage: the secret once, never again', async () => {
    const org = await setUp(hub, { scopes: SCOPES });
    const without = await setUp(hub);
    const target = await receiver();
    const refused = await call(hub, 'POST', '/api/v1/webhook-endpoints', {
      token: without.key,
      body: { url: target.url, events: ['*'] },
    });
    expectProblem(refused, 403, 'insufficient_scope');
    const made = await endpoint(hub, org, target, ['run.completed']);
    expect(made.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const listed = await call(hub, 'GET', '/api/v1/webhook-endpoints', { token: org.key });
    expect(listed.status).toBe(200);
    expect(listed.body.webhookEndpoints).toEqual([
      {
        id: made.id,
        url: target.url,
        events: ['run.completed'],
        description: 'test receiver',
        status: 'enabled',
        createdAt: expect.any(String),
        disabledAt: null,
      },
    ]);
    expect(listed.text).not.toContain(made.secret);
    // Another organization's key sees none of it.
    const other = await setUp(hub, { scopes: SCOPES });
    expect((await call(hub, 'GET', '/api/v1/webhook-endpoints', { token: other.key })).body.webhookEndpoints).toEqual(
      [],
    );
    expectProblem(
      await call(hub, 'DELETE', `/api/v1/webhook-endpoints/${made.id}`, { token: other.key }),
      404,
      'webhook_endpoint_not_found',
    );
    const bad = await call(hub, 'POST', '/api/v1/webhook-endpoints', {
      token: org.key,
      body: { url: target.url, events: ['run.finished'] },
    });
    expectProblem(bad, 400, 'invalid_request');
    expect((await call(hub, 'DELETE', `/api/v1/webhook-endpoints/${made.id}`, { token: org.key })).status).toBe(204);
    expectProblem(
      await call(hub, 'DELETE', `/api/v1/webhook-endpoints/${made.id}`, { token: org.key }),
      404,
      'webhook_endpoint_not_found',
    );
    const audit = await hub.sql<{ kind: string }[]>`
      select kind from audit_events where subject->>'endpointId' = ${made.id} order by at`;
    expect(audit.map((row) => row.kind)).toEqual(['webhook_endpoint.created', 'webhook_endpoint.deleted']);
  });

  it('sends run.started and run.completed with the run as GET /api/v1/runs/{id} shows it', async () => {
    const org = await organization(hub);
    const target = await receiver();
    await endpoint(hub, org, target, ['run.started', 'run.completed']);
    await install(hub, org);
    const daemon = org.daemon.keepAlive(300);
    try {
      await daemon.heartbeat();
      const dispatched = await call(hub, 'POST', '/api/v1/manual-runs', {
        token: org.key,
        body: { projectSlug: org.project, trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: randomUUID() },
      });
      expect(dispatched.status, dispatched.text).toBe(200);
      const runId = dispatched.body.triggerRunId as string;
      const next = await daemon.next(5);
      expect(next.status, next.text).toBe(200);
      const executionId = next.body.assignment.executionId as string;
      expect((await daemon.report(executionId, 'running')).status).toBeLessThan(300);
      expect((await daemon.report(executionId, 'succeeded', { exitCode: 0 })).status).toBeLessThan(300);
      await eventually(
        async () => target.of('run.completed'),
        (found) => found.length === 1,
        'run.completed at the receiver',
      );
      const run = await call(hub, 'GET', `/api/v1/runs/${runId}`, { token: org.key });
      expect(run.body.status).toBe('succeeded');
      const [completed] = target.of('run.completed');
      expect(completed?.event.data).toEqual(run.body);
      const [started] = target.of('run.started');
      expect(started?.event.data).toMatchObject({
        triggerRunId: runId,
        status: 'running',
        finishedAt: null,
        executions: [{ executionId, status: 'spawning', startedAt: null }],
      });
      expect(started?.id).not.toBe(completed?.id);
      expect(Date.parse(completed?.event.timestamp ?? '')).toBeGreaterThanOrEqual(
        Date.parse(started?.event.timestamp ?? ''),
      );
    } finally {
      daemon.stop();
    }
  });

  it('retries a 500 with the same webhook-id; the log keeps each attempt; Resend sends it again', async () => {
    const org = await organization(hub);
    const target = await receiver((n) => (n < 2 ? 500 : 200));
    const made = await endpoint(hub, org, target, ['configuration.installed']);
    const installed = await install(hub, org);
    await eventually(
      async () => target.received.length,
      (count) => count === 3,
      'three attempts',
    );
    const ids = new Set(target.received.map((each) => each.id));
    expect(ids.size).toBe(1);
    expect(target.received.map((each) => each.answered)).toEqual([500, 500, 200]);
    expect(target.received[2]?.event).toEqual({
      type: 'configuration.installed',
      timestamp: expect.any(String),
      data: { projectSlug: org.project, versionId: installed.versionId, version: installed.version, active: true },
    });
    const log = await eventually(
      () => call(hub, 'GET', `/api/v1/webhook-endpoints/${made.id}/deliveries`, { token: org.key }),
      (answer) => answer.body.deliveries?.[0]?.status === 'delivered',
      'the delivery log',
    );
    expect(log.body).toEqual({
      deliveries: [
        {
          id: expect.any(String),
          eventId: [...ids][0],
          type: 'configuration.installed',
          attempt: 3,
          status: 'delivered',
          responseStatus: 200,
          durationMs: expect.any(Number),
          createdAt: expect.any(String),
          nextAttemptAt: null,
        },
      ],
      nextCursor: null,
    });
    const deliveryId = log.body.deliveries[0].id as string;
    const detail = await call(hub, 'GET', `/api/v1/webhook-endpoints/${made.id}/deliveries/${deliveryId}`, {
      token: org.key,
    });
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body.attempts.map((each: { responseStatus: number }) => each.responseStatus)).toEqual([
      500, 500, 200,
    ]);
    expect(detail.body.attempts.map((each: { responseBody: string }) => each.responseBody)).toEqual([
      'no: 500',
      'no: 500',
      'ok',
    ]);
    expect(detail.body.payload).toEqual(target.received[0]?.event);

    const resent = await call(hub, 'POST', `/api/v1/webhook-endpoints/${made.id}/deliveries/${deliveryId}/resend`, {
      token: org.key,
    });
    expect(resent.status, resent.text).toBe(202);
    expect(resent.body).toMatchObject({ eventId: [...ids][0], status: 'pending', attempt: 0 });
    await eventually(
      async () => target.received.length,
      (count) => count === 4,
      'the resent delivery',
    );
    expect(target.received[3]?.id).toBe([...ids][0]);
    expectProblem(
      await call(hub, 'GET', `/api/v1/webhook-endpoints/${made.id}/deliveries/${randomUUID()}`, { token: org.key }),
      404,
      'webhook_delivery_not_found',
    );
    expectProblem(
      await call(hub, 'GET', `/api/v1/webhook-endpoints/${made.id}/deliveries?cursor=nope`, { token: org.key }),
      400,
      'invalid_request',
    );
  });

  it('gives up after the last retry, and marks the delivery failed; the metrics count each attempt', async () => {
    const org = await organization(hub);
    const target = await receiver(() => 503);
    const made = await endpoint(hub, org, target, ['configuration.installed']);
    const before = await scrape(hub);
    await install(hub, org);
    const log = await eventually(
      () => call(hub, 'GET', `/api/v1/webhook-endpoints/${made.id}/deliveries`, { token: org.key }),
      (answer) => answer.body.deliveries?.[0]?.status === 'failed',
      'the delivery failed',
    );
    // The first attempt and the three retries of HUB_WEBHOOK_RETRY_DELAYS_MS.
    expect(log.body.deliveries[0]).toMatchObject({ attempt: 4, responseStatus: 503, nextAttemptAt: null });
    expect(target.received).toHaveLength(4);
    const after = await scrape(hub);
    const moved = (result: string) =>
      metric(after, 'hub_webhook_deliveries_total', result) - metric(before, 'hub_webhook_deliveries_total', result);
    expect(moved('retrying')).toBe(3);
    expect(moved('failed')).toBe(1);
    expect(after).toMatch(/^hub_webhook_deliveries_pending \d+$/m);
  });

  it('the retention pass deletes events older than 30 days with their deliveries, and keeps pending ones', async () => {
    const org = await organization(hub);
    const target = await receiver(() => 500);
    await endpoint(hub, org, target, ['configuration.installed']);
    await install(hub, org);
    await install(hub, org);
    const events = await eventually(
      () => hub.sql<{ id: string }[]>`
        select e.id from webhook_events e join organizations o on o.id = e.organization_id where o.slug = ${org.org}
        order by e.created_at`,
      (rows) => rows.length === 2,
      'two events',
    );
    const [old, pending] = events.map((row) => row.id) as [string, string];
    const both = [old, pending];
    // Both failed first (4 attempts each): no deliverer touches them after.
    await eventually(
      () => hub.sql`select 1 from webhook_deliveries where event_id = any(${both}::uuid[]) and status = 'failed'`,
      (rows) => rows.length === 2,
      'both deliveries failed',
    );
    await hub.sql`update webhook_events set created_at = now() - interval '31 days' where id = any(${both}::uuid[])`;
    // One pending again, not due for a day.
    await hub.sql`
      update webhook_deliveries set status = 'pending', next_attempt_at = now() + interval '1 day' where event_id = ${pending}`;
    await new RetentionRepository(hub.sql, {
      runsDays: undefined,
      revisionsDays: undefined,
      revisionsKept: 10,
    }).prune();
    const left = await hub.sql<{ id: string }[]>`select id from webhook_events where id = any(${both}::uuid[])`;
    expect(left.map((row) => row.id)).toEqual([pending]);
    expect((await hub.sql`select 1 from webhook_deliveries where event_id = ${old}`).length).toBe(0);
  });

  it('a receiver that never answers delays no delivery to another endpoint', async () => {
    const org = await organization(hub);
    const stuck = await receiver(() => 'hang');
    const healthy = await receiver();
    const stuckEndpoint = await endpoint(hub, org, stuck, ['configuration.installed']);
    await endpoint(hub, org, healthy, ['configuration.installed']);
    for (let i = 0; i < 6; i++) await install(hub, org);
    await eventually(
      async () => healthy.received.length,
      (count) => count === 6,
      'all six at the healthy receiver',
    );
    // Meanwhile the stuck receiver holds its own attempts open (at most 4 at once), none of them ended (20 s timeout).
    expect(stuck.received.length).toBeGreaterThan(0);
    expect(stuck.received.length).toBeLessThanOrEqual(4);
    const [ended] = await hub.sql<{ count: number }[]>`
      select count(*)::int as count from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
      where d.endpoint_id = ${stuckEndpoint.id}`;
    expect(ended?.count).toBe(0);
    await call(hub, 'DELETE', `/api/v1/webhook-endpoints/${stuckEndpoint.id}`, { token: org.key });
  });

  it("no endpoint's backlog, hanging or disabled, stands before another endpoint's deliveries", async () => {
    const org = await organization(hub);
    const stuck = await receiver(() => 'hang');
    const healthy = await receiver();
    const stuckEndpoint = await endpoint(hub, org, stuck, ['configuration.installed']);
    const other = await organization(hub);
    const disabled = await endpoint(hub, other, await receiver(), ['configuration.installed']);
    await hub.sql`update webhook_endpoints set status = 'disabled', disabled_at = now() where id = ${disabled.id}`;
    // 2,500 deliveries due an hour ago for each: older than anything the healthy endpoint will get.
    for (const id of [stuckEndpoint.id, disabled.id])
      await hub.sql`
        with event as (
          insert into webhook_events (organization_id, type, data)
          select organization_id, 'configuration.installed', '{}' from webhook_endpoints where id = ${id} returning id)
        insert into webhook_deliveries (endpoint_id, event_id, next_attempt_at)
        select ${id}, event.id, now() - interval '1 hour' from event, generate_series(1, 2500)`;
    await endpoint(hub, org, healthy, ['configuration.installed']);
    await install(hub, org);
    await eventually(
      async () => healthy.received.length,
      (count) => count === 1,
      'the healthy endpoint served',
    );
    expect(stuck.received.length).toBeLessThanOrEqual(4);
    await call(hub, 'DELETE', `/api/v1/webhook-endpoints/${stuckEndpoint.id}`, { token: org.key });
  });

  it('a rolled-back install emits nothing; the committed one emits once', async () => {
    const org = await organization(hub);
    const target = await receiver();
    await endpoint(hub, org, target, ['*']);
    const first = await install(hub, org);
    await hub.sql
      .begin(async (tx) => {
        await tx`
          insert into configuration_revisions (project_id, version, shape, yaml, model, active, api_key_id)
          select project_id, version + 1, shape, yaml, model, false, api_key_id from configuration_revisions where id = ${first.versionId}`;
        throw new Error('roll back');
      })
      .catch((error: Error) => expect(error.message).toBe('roll back'));
    const second = await install(hub, org);
    await eventually(
      async () => target.of('configuration.installed'),
      (found) => found.length === 2,
      'two installs',
    );
    expect(target.of('configuration.installed').map((each) => each.event.data.versionId)).toEqual(
      expect.arrayContaining([first.versionId, second.versionId]),
    );
    const [events] = await hub.sql<{ count: number }[]>`
      select count(*)::int as count from webhook_events e join organizations o on o.id = e.organization_id where o.slug = ${org.org}`;
    expect(events?.count).toBe(2);
  });

  it('tells of a daemon gone offline: stopped, or silent past the offline window', async () => {
    const org = await organization(hub);
    const target = await receiver();
    await endpoint(hub, org, target, ['daemon.offline']);
    const stopping = await TestDaemon.enroll(hub, org.key, 'stopping-box');
    const silent = await TestDaemon.enroll(hub, org.key, 'silent-box');
    expect((await stopping.heartbeat()).status).toBe(200);
    expect((await silent.heartbeat()).status).toBe(200);
    expect((await stopping.signed('POST', '/api/v1/daemon/offline', {})).status).toBeLessThan(300);
    const told = await eventually(
      async () => target.of('daemon.offline'),
      (found) => found.length === 2,
      'both offline',
    );
    expect(told.map((each) => each.event.data.name).sort()).toEqual(['silent-box', 'stopping-box']);
    for (const each of told)
      expect(each.event.data).toEqual({
        daemonId: expect.any(String),
        name: expect.any(String),
        lastSeenAt: expect.any(String),
      });
    // Told once: a daemon that stays offline is not told of again.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(target.of('daemon.offline')).toHaveLength(2);
  });

  it('disables an endpoint after 5 days of failures; an owner enables it and its pending deliveries go', async () => {
    const org = await organization(hub);
    const target = await receiver(() => 500);
    const made = await endpoint(hub, org, target, ['configuration.installed']);
    await hub.sql`update webhook_endpoints set failing_since = now() - interval '6 days' where id = ${made.id}`;
    await install(hub, org);
    const listed = await eventually(
      () => call(hub, 'GET', '/api/v1/webhook-endpoints', { token: org.key }),
      (answer) => answer.body.webhookEndpoints?.[0]?.status === 'disabled',
      'the endpoint disabled',
    );
    expect(listed.body.webhookEndpoints[0].disabledAt).toEqual(expect.any(String));
    const log = await call(hub, 'GET', `/api/v1/webhook-endpoints/${made.id}/deliveries`, { token: org.key });
    const [delivery] = log.body.deliveries;
    expect(delivery).toMatchObject({ status: 'pending', attempt: 1 });
    expectProblem(
      await call(hub, 'POST', `/api/v1/webhook-endpoints/${made.id}/deliveries/${delivery.id}/resend`, {
        token: org.key,
      }),
      409,
      'webhook_endpoint_disabled',
    );
    // Disabled: nothing new is queued for it.
    await install(hub, org);
    expect(
      (await call(hub, 'GET', `/api/v1/webhook-endpoints/${made.id}/deliveries`, { token: org.key })).body.deliveries,
    ).toHaveLength(1);
    target.answer(() => 200);
    const enabled = await call(hub, 'POST', `/api/v1/webhook-endpoints/${made.id}/enable`, { token: org.key });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body).toMatchObject({ status: 'enabled', disabledAt: null });
    await eventually(
      () => call(hub, 'GET', `/api/v1/webhook-endpoints/${made.id}/deliveries`, { token: org.key }),
      (answer) => answer.body.deliveries?.[0]?.status === 'delivered',
      'the pending delivery delivered',
    );
  });
});

describe('a hub killed between attempts', () => {
  it('leaves the event to another instance, which delivers it with the same webhook-id', async () => {
    const database = await freshDatabase();
    const env = { ...ENV, HUB_WEBHOOK_RETRY_DELAYS_MS: '3000' };
    const first = await startHub({ databaseUrl: database.url, env });
    const target = await WebhookReceiver.start((n) => (n === 0 ? 500 : 200));
    let second: Awaited<ReturnType<typeof startHub>> | undefined;
    const sql = connect(database.url);
    try {
      const org = await setUp(first, { scopes: SCOPES });
      await TestDaemon.enroll(first, org.key, 'dev-box');
      const made = await call(first, 'POST', '/api/v1/webhook-endpoints', {
        token: org.key,
        body: { url: target.url, events: ['configuration.installed'] },
      });
      target.secret(made.body.secret as string);
      expect(
        (
          await call(first, 'POST', '/api/v1/configurations/install', {
            token: org.key,
            body: { projectSlug: org.project, yaml: fixTestsConfiguration },
          })
        ).status,
      ).toBe(201);
      // The first attempt answered 500 and was recorded: the next is due in about 3 s.
      await eventually(
        async () => (await sql<{ count: number }[]>`select count(*)::int as count from webhook_attempts`)[0]?.count,
        (count) => count === 1,
        'the first attempt recorded',
      );
      first.process.kill('SIGKILL');
      await first.stop();
      second = await startHub({ databaseUrl: database.url, env });
      await eventually(
        async () => target.received.length,
        (count) => count === 2,
        'the retry from the other hub',
      );
      expect(target.received[1]?.id).toBe(target.received[0]?.id);
      expect(target.received[1]?.answered).toBe(200);
      expect(target.refused).toEqual([]);
    } finally {
      await second?.stop();
      await sql.end();
      await target.close();
      await database.drop();
    }
  }, 120_000);
});

describe('destinations (a hub without HUB_WEBHOOK_ALLOW_PRIVATE, embedded PostgreSQL)', () => {
  let hub: Hub;
  let org: Org;
  beforeAll(async () => {
    hub = await hubOn('embedded');
    org = await setUp(hub, { scopes: SCOPES });
  }, 120_000);
  afterAll(async () => hub?.close());

  it.each([
    ['https://127.0.0.1/hooks', 'loopback'],
    ['https://10.1.2.3/hooks', 'private address (10.0.0.0/8'],
    ['https://169.254.169.254/latest/meta-data', 'link-local'],
    ['https://[::1]:8443/hooks', 'loopback'],
    ['https://localhost/hooks', 'resolves to'],
    ['http://hooks.example.com/hub', 'must start with https://'],
  ])('refuses %s with a field issue naming why', async (url, why) => {
    const answer = await call(hub, 'POST', '/api/v1/webhook-endpoints', {
      token: org.key,
      body: { url, events: ['*'] },
    });
    expect(answer.status, answer.text).toBe(422);
    expectProblem(answer, 422, 'invalid_webhook_destination');
    expect(answer.body.issues).toEqual([
      { pointer: '/url', code: 'webhook.destination', message: expect.stringContaining(why) },
    ]);
    expect((await call(hub, 'GET', '/api/v1/webhook-endpoints', { token: org.key })).body.webhookEndpoints).toEqual([]);
  });
});
