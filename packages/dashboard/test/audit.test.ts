// The audit page against real hubs on both databases: the events of setup, keys, sign-ins and the
// API listed newest first with who caused each, escaped, 50 a page; then in Chromium.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browsable, launchBrowser, shoot } from './support/browser.js';
import { call } from '../../server/test/support/client.js';
import { databases, hubOn } from '../../server/test/support/hub.js';
import { arrange, form, page, type Hub } from './support/hub-session.js';

const HOSTILE = '<script>alert(5)</script>';

const text = async (response: Response) => {
  expect(response.status).toBe(200);
  return response.text();
};
const rows = (html: string) => html.split('<tbody>')[1]?.split('<tr').slice(1) ?? [];

/** A key named HOSTILE made in the dashboard, and an enrollment token issued with the arranged key. */
async function activity(hub: Hub, owner: string, key: string): Promise<void> {
  const created = await form(hub, '/keys', { name: HOSTILE, scopes: ['runs:read'] }, { cookie: owner });
  expect(created.status).toBe(201);
  expect((await call(hub, 'POST', '/api/v1/daemons/enrollment-tokens', { token: key })).status).toBe(201);
}

describe.each(databases)('the audit page on the %s database', (kind) => {
  let hub: Hub;
  let owner = '';
  let member = '';
  let key = '';

  beforeAll(async () => {
    hub = await hubOn(kind);
    ({ owner, member, key } = await arrange(hub));
    await activity(hub, owner, key);
  }, 120_000);
  afterAll(async () => hub?.close());

  it('needs a session', async () => {
    expect((await page(hub, '/audit')).headers.get('location')).toBe('/sign-in');
  });

  it('lists the events newest first with who caused each, escaped, for members too', async () => {
    const html = await text(await page(hub, '/audit', member));
    const listed = rows(html);
    expect(listed[0]).toContain('Enrollment token issued');
    // Who, as people read it: a key by its name and prefix.
    expect(listed[0]).toMatch(/<td data-label="Who"><span>API key ops \(hub_pk_[0-9A-Za-z]{8}…\)<\/span><\/td>/);
    // The operator's project, linked.
    const created = listed.find((row) => row.includes('Project created'));
    expect(created).toContain('<span class="muted">operator API</span>');
    expect(created).toContain('<a href="/projects/app"><code>app</code></a>');
    expect(listed[0]).toMatch(/API key ops \(hub_pk_[0-9A-Za-z]+…\)/);
    expect(listed[0]).toMatch(/valid until <\/span><code>\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/code>/);
    expect(listed[1]).toContain('API key created');
    expect(listed[1]).toContain('>Ada<');
    expect(listed[1]).toContain('&lt;script>alert(5)&lt;/script>');
    expect(listed.find((row) => row.includes('Signed in'))).toContain('>Mia<');
    expect(listed.find((row) => row.includes('Signed in'))).toMatch(/from <\/span><code>[0-9a-f.:]+<\/code>/);
    expect(listed.at(-1)).toContain('Member added');
    expect(listed.at(-1)).toContain('<code>owner</code>');
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain('href="/audit" aria-current="page"');
    expect(html).not.toContain('Older events');
  });

  it('pages the events 50 at a time with an "Older events" link', async () => {
    await hub.sql`
      insert into audit_events (organization_id, at, kind, actor_kind, subject)
      select o.id, now() - g * interval '1 hour', 'daemon.enrolled', 'daemon', jsonb_build_object('name', 'old-' || g)
      from organizations o, generate_series(1, 55) g where o.slug = 'acme'`;
    const first = await text(await page(hub, '/audit', owner));
    expect(rows(first)).toHaveLength(50);
    const older = /href="(\/audit\?before=[^"]+)">Older events</.exec(first)?.[1] as string;
    expect(older).toBeDefined();
    const second = rows(await text(await page(hub, older, owner)));
    const total = Number((await hub.sql`select count(*)::int as n from audit_events`)[0]?.n);
    expect(second).toHaveLength(total - 50);
    expect(second.at(-1)).toContain('old-55');
    const last = await text(await page(hub, older, owner));
    expect(last).toContain('href="/audit">Newest events<');
    expect(last).not.toContain('Older events');
    expect(await text(await page(hub, '/audit?before=not-an-event', owner))).toContain('No older events.');
  });
});

describe.skipIf(!browsable)('the audit page in a browser', () => {
  let hub: Hub;
  let browser: Browser;

  beforeAll(async () => {
    hub = await hubOn('external');
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await hub?.close();
  });

  it('shows the events at 375 and 1280 px, reached from the section navigation', async () => {
    const { owner, key } = await arrange(hub);
    await activity(hub, owner, key);
    const context = await browser.newContext();
    const [name, value] = owner.split('=') as [string, string];
    await context.addCookies([{ name, value, url: hub.url }]);
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (message) => message.type() === 'error' && refused.push(message.text()));
    await page.goto(`${hub.url}/keys`);
    await Promise.all([page.waitForURL(/\/audit$/), page.click('nav.sections a[href="/audit"]')]);
    expect(await page.textContent('table.audit')).toContain(HOSTILE);
    await shoot(page, 'audit');
    expect(refused).toEqual([]);
    await context.close();
  }, 90_000);
});
