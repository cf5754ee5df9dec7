// The Webhooks page (issue 28) on a real hub that may send to loopback (HUB_WEBHOOK_ALLOW_PRIVATE)
// with short retries: an owner adds an endpoint in Chromium and sees its secret once; a receiver
// on loopback (verifying with the `standardwebhooks` package) answers 500 then 200; the delivery's
// page shows both attempts and the payload, and Resend sends the event again with its webhook-id.
// Members read and change nothing; a destination the hub refuses is said by the URL field.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../server/test/support/client.js';
import { TestDaemon } from '../../server/test/support/daemon.js';
import { hubOn } from '../../server/test/support/hub.js';
import { eventually } from '../../server/test/support/poll.js';
import { WebhookReceiver } from '../../server/test/support/webhook-receiver.js';
import { browsable, launchBrowser, shoot } from './support/browser.js';
import { arrange, CONFIGURATION, form, page, type Hub } from './support/hub-session.js';

const SECRET = /whsec_[A-Za-z0-9+/]{43}=/;

describe('Webhooks in the dashboard', () => {
  let hub: Hub;
  let owner = '';
  let member = '';
  let key = '';
  let browser: Browser | undefined;
  const receivers: WebhookReceiver[] = [];
  const receiver = async (...args: Parameters<typeof WebhookReceiver.start>) => {
    const made = await WebhookReceiver.start(...args);
    receivers.push(made);
    return made;
  };
  const install = async () => {
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: key,
      body: { projectSlug: 'app', yaml: CONFIGURATION },
    });
    expect(installed.status, installed.text).toBe(201);
    return installed.body as { versionId: string; version: number };
  };
  const endpointIdOf = async (url: string) =>
    ((await hub.sql<{ id: string }[]>`select id from webhook_endpoints where url = ${url}`)[0] as { id: string }).id;
  const auditKinds = async (endpointId: string) =>
    (
      await hub.sql<{ kind: string; actor_kind: string }[]>`
        select kind, actor_kind from audit_events where subject->>'endpointId' = ${endpointId} order by at`
    ).map((row) => `${row.kind} by ${row.actor_kind}`);
  /** A tab signed in as `cookie`. */
  const tabAs = async (cookie: string): Promise<{ context: BrowserContext; tab: Page }> => {
    const context = await (browser as Browser).newContext();
    const [name, value] = [cookie.slice(0, cookie.indexOf('=')), cookie.slice(cookie.indexOf('=') + 1)];
    await context.addCookies([{ name, value, url: hub.url }]);
    return { context, tab: await context.newPage() };
  };
  /** Submits the add form and waits for the page it answers with. */
  const submitAdd = async (tab: Page) => {
    const [answer] = await Promise.all([
      tab.waitForResponse((response) => response.request().method() === 'POST'),
      tab.click('form[action="/webhooks"] button[type=submit]'),
    ]);
    await tab.waitForLoadState();
    return answer.status();
  };

  beforeAll(async () => {
    hub = await hubOn('external', { HUB_WEBHOOK_ALLOW_PRIVATE: 'true', HUB_WEBHOOK_RETRY_DELAYS_MS: '300,300' });
    ({ owner, member, key } = await arrange(hub));
    // The configuration's environment names it: installing needs it enrolled.
    await TestDaemon.enroll(hub, key, 'dev-box');
    if (browsable) browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    for (const each of receivers) expect(each.refused).toEqual([]);
    await Promise.all(receivers.map((each) => each.close()));
    await hub?.close();
  });

  it.skipIf(!browsable)(
    'adds an endpoint, shows its secret once, logs a retried delivery, and resends it with its webhook-id',
    async () => {
      const target = await receiver((n) => (n === 0 ? 500 : 200));
      const { context, tab } = await tabAs(owner);
      await tab.goto(`${hub.url}/keys`);
      await Promise.all([tab.waitForURL(/\/webhooks$/), tab.click('nav.sections a[href="/webhooks"]')]);
      expect(await tab.textContent('main')).toContain('No endpoints yet');
      await tab.fill('#webhook-url', target.url);
      await tab.uncheck('input[name=events][value="*"]');
      await tab.check('input[name=events][value="configuration.installed"]');
      await tab.fill('#webhook-description', '<b>the test receiver</b>');
      expect(await submitAdd(tab)).toBe(201);
      const secret = await tab.inputValue('#secret');
      expect(secret).toMatch(SECRET);
      expect(await tab.textContent('main')).toContain('standardwebhooks');
      target.secret(secret);
      await shoot(tab, 'webhook-created');

      // Never again: not on the list, not on the endpoint's page.
      await tab.goto(`${hub.url}/webhooks`);
      const list = await tab.content();
      expect(list).not.toMatch(SECRET);
      expect(list).toContain('&lt;b&gt;the test receiver&lt;/b&gt;');
      expect(await tab.textContent('table.webhooks')).toContain(target.url);
      const id = await endpointIdOf(target.url);
      expect(await auditKinds(id)).toEqual(['webhook_endpoint.created by account']);

      const installed = await install();
      await eventually(
        async () => target.received.length,
        (count) => count === 2,
        'a 500, then a 200',
      );
      expect(target.received.map((each) => each.answered)).toEqual([500, 200]);
      expect(new Set(target.received.map((each) => each.id)).size).toBe(1);
      await eventually(
        async () => (await tab.goto(`${hub.url}/webhooks/${id}`), await tab.textContent('table.deliveries')),
        (text) => text?.includes('delivered') === true,
        'the delivery logged as delivered',
      );
      expect(await tab.content()).not.toMatch(SECRET);
      const row = await tab.textContent('table.deliveries tbody tr');
      expect(row).toContain('configuration.installed');
      expect(row).toContain('200');
      await shoot(tab, 'webhook-endpoint');
      await tab.goto(`${hub.url}/webhooks`);
      await shoot(tab, 'webhooks');

      await tab.goto(`${hub.url}/webhooks/${id}`);
      await Promise.all([tab.waitForURL(/\/deliveries\//), tab.click('table.deliveries a')]);
      const attempts = await tab.locator('table.attempts tbody tr').allTextContents();
      expect(attempts).toHaveLength(2);
      expect(attempts[0]).toContain('500');
      expect(attempts[0]).toContain('no: 500');
      expect(attempts[1]).toContain('200');
      const payload = JSON.parse((await tab.textContent('pre.payload')) ?? '');
      expect(payload).toEqual({
        type: 'configuration.installed',
        timestamp: expect.any(String),
        data: { projectSlug: 'app', versionId: installed.versionId, version: installed.version, active: true },
      });
      expect(await tab.textContent('main')).toContain(target.received[0]?.id as string);
      await shoot(tab, 'webhook-delivery');

      await Promise.all([tab.waitForURL(/resent=1$/), tab.click('form[action$="/resend"] button')]);
      expect(await tab.textContent('main')).toContain('Resent');
      await eventually(
        async () => target.received.length,
        (count) => count === 3,
        'the resent webhook',
      );
      expect(target.received[2]?.id).toBe(target.received[0]?.id);
      expect(target.received[2]?.event).toEqual(target.received[1]?.event);
      await eventually(
        async () => (await tab.reload(), await tab.textContent('table.attempts')),
        (text) => text?.includes('200') === true,
        'the resent delivery logged',
      );
      await tab.goto(`${hub.url}/webhooks/${id}`);
      expect(await tab.locator('table.deliveries tbody tr').count()).toBe(2);
      await context.close();
    },
    90_000,
  );

  it.skipIf(!browsable)(
    'says by the URL field why the hub does not send to a destination',
    async () => {
      const { context, tab } = await tabAs(owner);
      await tab.goto(`${hub.url}/webhooks`);
      await tab.fill('#webhook-url', 'ftp://hooks.example.com/hub');
      await tab.fill('#webhook-description', 'kept');
      expect(await submitAdd(tab)).toBe(422);
      expect(await tab.textContent('#webhook-url-error')).toContain('The URL must start with https:// or http://');
      expect(await tab.getAttribute('#webhook-url', 'aria-describedby')).toContain('webhook-url-error');
      expect(await tab.inputValue('#webhook-url')).toBe('ftp://hooks.example.com/hub');
      expect(await tab.inputValue('#webhook-description')).toBe('kept');
      await shoot(tab, 'webhook-refused');
      await context.close();
      expect((await hub.sql`select 1 from webhook_endpoints where url like 'ftp:%'`).length).toBe(0);
    },
    60_000,
  );

  it('checks the form before the hub: no events, an over-long URL', async () => {
    const none = await form(hub, '/webhooks', { url: 'http://127.0.0.1:9/x' }, { cookie: owner });
    expect(none.status).toBe(422);
    expect(await none.text()).toContain('Choose the events to send, or all events.');
    const long = await form(
      hub,
      '/webhooks',
      { url: `http://127.0.0.1:9/${'x'.repeat(2048)}`, events: '*' },
      { cookie: owner },
    );
    expect(long.status).toBe(422);
    expect(await long.text()).toContain('id="webhook-url-error"');
  });

  it('shows members endpoints and deliveries, and refuses every change of theirs', async () => {
    const [endpoint] = await hub.sql<{ id: string }[]>`select id from webhook_endpoints limit 1`;
    const [delivery] = await hub.sql<{ id: string }[]>`select id from webhook_deliveries limit 1`;
    const id = endpoint?.id as string;
    const html = await (await page(hub, '/webhooks', member)).text();
    expect(html).toContain('Only owners add, delete and enable endpoints.');
    expect(html).not.toContain('form class="stack" method="post" action="/webhooks"');
    expect(html).not.toContain('>Delete<');
    const detail = await page(hub, `/webhooks/${id}/deliveries/${delivery?.id as string}`, member);
    expect(detail.status).toBe(200);
    expect(await detail.text()).not.toContain('/resend"');
    const before = await hub.sql`select count(*)::int as n from webhook_deliveries`;
    for (const [path, fields] of [
      ['/webhooks', { url: 'http://127.0.0.1:9/x', events: '*' }],
      [`/webhooks/${id}/delete`, {}],
      [`/webhooks/${id}/enable`, {}],
      [`/webhooks/${id}/deliveries/${delivery?.id as string}/resend`, {}],
    ] as const) {
      expect((await form(hub, path, fields, { cookie: member })).status, path).toBe(403);
    }
    expect((await page(hub, `/webhooks/${id}/delete`, member)).status).toBe(403);
    expect(await hub.sql`select count(*)::int as n from webhook_deliveries`).toEqual(before);
    expect((await hub.sql`select 1 from webhook_endpoints`).length).toBe(1);
    // A form from elsewhere changes nothing either.
    expect(
      (await form(hub, `/webhooks/${id}/delete`, {}, { cookie: owner, origin: 'https://evil.example' })).status,
    ).toBe(403);
  });

  it('refuses to resend to a disabled endpoint, enables it again, and deletes after asking', async () => {
    const target = await receiver();
    const added = await form(hub, '/webhooks', { url: target.url, events: '*' }, { cookie: owner });
    expect(added.status).toBe(201);
    target.secret(SECRET.exec(await added.text())?.[0] as string);
    const id = await endpointIdOf(target.url);
    await install();
    await eventually(
      async () => hub.sql`select id from webhook_deliveries where endpoint_id = ${id} and status = 'delivered'`,
      (rows) => rows.length === 1,
      'a delivered event',
    );
    const [delivery] = await hub.sql<{ id: string }[]>`select id from webhook_deliveries where endpoint_id = ${id}`;
    const deliveryPath = `/webhooks/${id}/deliveries/${delivery?.id as string}`;
    // As the deliverer disables an endpoint after 5 days of failures.
    await hub.sql`update webhook_endpoints set status = 'disabled', disabled_at = now() where id = ${id}`;
    const refused = await form(hub, `${deliveryPath}/resend`, {}, { cookie: owner });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('Enable it again on its page, then resend.');
    expect(await (await page(hub, deliveryPath, owner)).text()).not.toContain('/resend"');
    const list = await (await page(hub, '/webhooks', owner)).text();
    expect(list).toContain(`action="/webhooks/${id}/enable"`);
    if (browser !== undefined) {
      const { context, tab } = await tabAs(owner);
      await tab.goto(`${hub.url}/webhooks/${id}`);
      await shoot(tab, 'webhook-disabled');
      await context.close();
    }

    const enabled = await form(hub, `/webhooks/${id}/enable`, {}, { cookie: owner });
    expect(enabled.status).toBe(303);
    expect(enabled.headers.get('location')).toBe(`/webhooks/${id}?enabled=1`);
    expect(await (await page(hub, `/webhooks/${id}?enabled=1`, owner)).text()).toContain('enabled again');

    const asking = await page(hub, `/webhooks/${id}/delete`, owner);
    expect(asking.status).toBe(200);
    expect(await asking.text()).toContain('Delete this endpoint?');
    const deleted = await form(hub, `/webhooks/${id}/delete`, {}, { cookie: owner });
    expect(deleted.headers.get('location')).toBe('/webhooks?deleted=1');
    expect((await page(hub, `/webhooks/${id}`, owner)).status).toBe(404);
    expect((await form(hub, `/webhooks/${id}/delete`, {}, { cookie: owner })).status).toBe(404);
    expect(await auditKinds(id)).toEqual([
      'webhook_endpoint.created by account',
      'webhook_endpoint.enabled by account',
      'webhook_endpoint.deleted by account',
    ]);
    const audit = await (await page(hub, '/audit', owner)).text();
    expect(audit).toContain('Webhook endpoint deleted');
    expect(audit).toContain(`<code>${target.url}</code>`);
  }, 60_000);
});
