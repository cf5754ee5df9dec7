// The dashboard's flows against real hubs (child processes) on both databases: setup from the
// printed link, sign-in, API keys made and revoked in the dashboard and used on the API, members,
// cross-site requests; then the same in headless Chromium, photographed at 375 and 1280 px.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browsable, launchBrowser, shoot } from './support/browser.js';
import { hashPassword } from '../../server/src/people/passwords.js';
import { call } from '../../server/test/support/client.js';
import { databases, hubOn } from '../../server/test/support/hub.js';
import { cookieOf, form, page, PASSWORD, setupLink, type Hub } from './support/hub-pages.js';

describe.each(databases)('the dashboard on the %s database', (kind) => {
  let hub: Hub;
  let owner = '';

  beforeAll(async () => {
    hub = await hubOn(kind);
  }, 120_000);
  afterAll(async () => hub?.close());

  it('sets up the owner and the first organization from the printed link, once', async () => {
    const link = new URL(setupLink(hub));
    const token = link.searchParams.get('token') as string;
    expect((await page(hub, `/setup?token=${token}`)).status).toBe(200);
    const fields = {
      token,
      name: 'Ada <script>alert(1)</script>',
      email: 'ada@example.com',
      password: PASSWORD,
      slug: 'acme',
      organizationName: 'Acme "& Co"',
    };
    const refused = await form(hub, '/setup', { ...fields, token: 'x'.repeat(43) });
    expect(refused.status).toBe(403);
    expect(await refused.text()).not.toContain(PASSWORD);
    const done = await form(hub, '/setup', fields);
    expect(done.status).toBe(303);
    expect(done.headers.get('set-cookie')).toMatch(/^hub_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
    owner = cookieOf(done);
    const keys = await (await page(hub, '/keys', owner)).text();
    expect(keys).toContain('Ada &lt;script');
    expect(keys).not.toContain('<script>alert(1)');
    expect((await form(hub, '/setup', fields)).status).not.toBe(303);
    const [row] = await hub.sql`select count(*)::int as n from accounts`;
    expect(row?.n).toBe(1);
  });

  it('refuses a cross-site POST with 403, and acts on nothing', async () => {
    for (const origin of ['https://evil.example.com', null]) {
      expect(
        (await form(hub, '/keys', { name: 'stolen', scopes: 'runs:read' }, { cookie: owner, origin })).status,
      ).toBe(403);
    }
    const [row] = await hub.sql`select count(*)::int as n from api_keys`;
    expect(row?.n).toBe(0);
  });

  it('creates a key that works on the API, lists its prefix and never its secret, and revokes it at once', async () => {
    const created = await form(
      hub,
      '/keys',
      { name: 'CI <b>', scopes: ['projects:read', 'runs:read'] },
      { cookie: owner },
    );
    expect(created.status).toBe(201);
    const secret = /hub_pk_[0-9A-Za-z]{38}/.exec(await created.text())?.[0] as string;
    expect(secret).toBeDefined();
    expect((await call(hub, 'GET', '/api/v1/projects', { token: secret })).status).toBe(200);
    const list = await (await page(hub, '/keys', owner)).text();
    expect(list).toContain(secret.slice(0, 15));
    expect(list).not.toContain(secret);
    expect(list).toContain('CI &lt;b');
    expect(list).not.toContain('CI <b');
    const [key] = await hub.sql`select id, created_by_account_id from api_keys`;
    expect(key?.created_by_account_id).not.toBeNull();
    expect((await page(hub, `/keys/${key?.id as string}/revoke`, owner)).status).toBe(200);
    expect((await form(hub, `/keys/${key?.id as string}/revoke`, {}, { cookie: owner })).status).toBe(303);
    expect((await call(hub, 'GET', '/api/v1/projects', { token: secret })).status).toBe(401);
  });

  it('pages a long list of keys, 50 a page', async () => {
    const [org] = await hub.sql`select id from organizations where slug = 'acme'`;
    await hub.sql`
      insert into api_keys (organization_id, name, prefix, digest, scopes)
      select ${org?.id as string}, 'bulk ' || n, 'hub_pk_bulk' || lpad(n::text, 4, '0'), sha256(('bulk ' || n)::bytea), '{projects:read}'
      from generate_series(1, 55) as n`;
    const first = await (await page(hub, '/keys', owner)).text();
    expect(first.match(/<tr/g)?.length).toBe(51);
    expect(first).toContain('href="/keys?page=2"');
    const second = await (await page(hub, '/keys?page=2', owner)).text();
    expect(second.match(/<tr/g)?.length).toBe(7);
    expect(second).toContain('rel="prev"');
    await hub.sql`delete from api_keys where name like 'bulk %'`;
  });

  it('opens no page to a bearer key, and a session cookie calls no API operation', async () => {
    const response = await page(hub, '/keys', undefined, { authorization: 'Bearer hub_pk_whatever' });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/sign-in');
    expect((await call(hub, 'GET', '/api/v1/projects', { headers: { cookie: owner } })).status).toBe(401);
  });

  it('shows a member the keys without managing them', async () => {
    const [org] = await hub.sql`select id from organizations where slug = 'acme'`;
    const [account] =
      await hub.sql`insert into accounts (email, name, password_hash) values ('mia@example.com', 'Mia', ${await hashPassword(PASSWORD)}) returning id`;
    await hub.sql`insert into organization_members (organization_id, account_id, role) values (${org?.id as string}, ${account?.id as string}, 'member')`;
    const signedIn = await form(hub, '/sign-in', { email: 'mia@example.com', password: PASSWORD });
    expect(signedIn.status).toBe(303);
    const member = cookieOf(signedIn);
    const list = await page(hub, '/keys', member);
    expect(list.status).toBe(200);
    expect(await list.text()).not.toContain('action="/keys"');
    expect((await form(hub, '/keys', { name: 'x', scopes: 'runs:read' }, { cookie: member })).status).toBe(403);
  });

  it('answers a wrong password and an unknown e-mail alike, and signs out', async () => {
    const wrong = await form(hub, '/sign-in', { email: 'ada@example.com', password: 'wrong password!' });
    const unknown = await form(hub, '/sign-in', { email: 'nobody@example.com', password: PASSWORD });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const message = (text: string) => /<p class="notice error"[^>]*>([^<]*)</.exec(text)?.[1];
    const told = message(await wrong.text());
    expect(told).toMatch(/wrong/);
    expect(message(await unknown.text())).toBe(told);
    const out = await form(hub, '/sign-out', {}, { cookie: owner });
    expect(out.status).toBe(303);
    expect((await page(hub, '/keys', owner)).headers.get('location')).toBe('/sign-in');
  });
});

describe.skipIf(!browsable).each(databases)('the dashboard in a browser, on the %s database', (kind) => {
  let hub: Hub;
  let browser: Browser;

  beforeAll(async () => {
    hub = await hubOn(kind);
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await hub?.close();
  });

  it('sets up, creates a key with its secret shown once, and revokes it, with forms alone', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (message) => message.type() === 'error' && refused.push(message.text()));
    await page.goto(setupLink(hub));
    await shoot(page, 'setup');
    await page.fill('#name', 'Ada');
    await page.fill('#email', 'ada@example.com');
    await page.fill('#password', PASSWORD);
    await page.fill('#slug', 'acme');
    await page.fill('#organization-name', 'Acme');
    await Promise.all([page.waitForURL(/\/keys$/), page.click('button[type=submit]')]);
    await shoot(page, 'keys-empty');
    await page.fill('#key-name', 'CI');
    await page.check('input[value="projects:read"]');
    await Promise.all([page.waitForLoadState(), page.click('form[action="/keys"] button[type=submit]')]);
    const secret = /hub_pk_[0-9A-Za-z]{38}/.exec(await page.content())?.[0];
    expect(secret).toBeDefined();
    await shoot(page, 'key-created');
    expect((await call(hub, 'GET', '/api/v1/projects', { token: secret as string })).status).toBe(200);
    await page.goto(`${hub.url}/keys`);
    expect(await page.content()).not.toContain(secret as string);
    await shoot(page, 'keys');
    await Promise.all([page.waitForURL(/\/revoke$/), page.click('a[href$="/revoke"]')]);
    await shoot(page, 'revoke');
    await Promise.all([page.waitForURL(/\/keys$/), page.click('form[action$="/revoke"] button[type=submit]')]);
    expect((await call(hub, 'GET', '/api/v1/projects', { token: secret as string })).status).toBe(401);
    await Promise.all([page.waitForURL(/\/sign-in$/), page.click('form[action="/sign-out"] button')]);
    await shoot(page, 'sign-in');
    // A wrong password is told so, generically; the right one signs in again.
    await page.fill('#email', 'ada@example.com');
    await page.fill('#password', 'wrong password!');
    await Promise.all([page.waitForLoadState(), page.click('button[type=submit]')]);
    expect(await page.textContent('.error')).toContain('wrong');
    await shoot(page, 'sign-in-refused');
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL(/\/keys$/), page.click('button[type=submit]')]);
    expect(refused.filter((text) => !text.includes('401'))).toEqual([]);
    await context.close();
  }, 60_000);
});
