// Outbound webhooks when something fails (issue 28; DECISIONS.md, Outbound webhooks): a receiver
// that never answers delays no other, no backlog stands before another endpoint's deliveries, a
// rolled-back install emits nothing, daemons gone offline are told, an endpoint failing for 5 days
// is disabled, a hub killed between attempts leaves the event to another, and private
// destinations are refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectProblem, setUp } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { connect, freshDatabase, hubOn, startHub } from './support/hub.js';
import { eventually } from './support/poll.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { ENV, SCOPES, endpoint, install, organization, webhookHub, type Hub, type Org } from './support/webhooks.js';

describe('outbound webhooks when something fails (external PostgreSQL)', () => {
  const { hub: current, receiver } = webhookHub();
  let hub: Hub;
  beforeAll(() => {
    hub = current();
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
      const org = await organization(first);
      await endpoint(first, org, target, ['configuration.installed']);
      await install(first, org);
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
