// Outbound webhooks (issue 28; DECISIONS.md, Outbound webhooks) on a real hub: a receiver on
// loopback verifies every delivery with the `standardwebhooks` package. Endpoints and their secret,
// runs as they arrive, retries that keep the webhook-id, giving up, and retention. What happens
// when receivers, hubs or installs fail: webhooks-failures.test.ts.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectProblem, setUp } from './support/client.js';
import { eventually } from './support/poll.js';
import { RetentionRepository } from '../src/retention/policy.js';
import { SCOPES, endpoint, install, metric, organization, scrape, webhookHub, type Hub } from './support/webhooks.js';

describe('outbound webhooks (external PostgreSQL)', () => {
  const { hub: current, receiver } = webhookHub();
  let hub: Hub;
  beforeAll(() => {
    hub = current();
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
});
