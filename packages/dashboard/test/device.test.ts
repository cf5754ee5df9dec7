// The verification page of `hub login` (RFC 8628) and the account's CLI logins, against real hubs
// (child processes) on both databases: the device request made as the CLI makes it, the page
// driven with forms and in headless Chromium (photographed at 375 and 1280 px), the credential
// redeemed at the token endpoint, used on the API, and revoked on the account page.
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../server/src/people/passwords.js';
import { call } from '../../server/test/support/client.js';
import { databases, hubOn } from '../../server/test/support/hub.js';
import { browsable, launchBrowser, shoot } from './support/browser.js';
import { cookieOf, form, page, PASSWORD, setUpOwner, type Hub } from './support/hub-pages.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

const post = (hub: Hub, path: string, fields: Record<string, string>) =>
  fetch(`${hub.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });

/** What `hub login` does first: a device request with the machine's host name. */
async function deviceAuthorization(hub: Hub, hostname = 'laptop.example'): Promise<DeviceAuthorization> {
  const answer = await post(hub, '/oauth/device_authorization', { client_id: 'hub-cli', hostname });
  expect(answer.status).toBe(200);
  return (await answer.json()) as DeviceAuthorization;
}

/** One poll of the token endpoint (each test polls a device code once: polling faster than `interval` is `slow_down`). */
async function redeem(hub: Hub, deviceCode: string): Promise<{ status: number; body: Record<string, string> }> {
  const answer = await post(hub, '/oauth/token', {
    grant_type: DEVICE_GRANT,
    device_code: deviceCode,
    client_id: 'hub-cli',
  });
  return { status: answer.status, body: (await answer.json()) as Record<string, string> };
}

async function signIn(hub: Hub, email: string): Promise<string> {
  const signedIn = await form(hub, '/sign-in', { email, password: PASSWORD });
  expect(signedIn.status).toBe(303);
  return cookieOf(signedIn);
}

/** A person in the organization `acme` only, signed in. */
async function member(hub: Hub, email: string): Promise<string> {
  const [org] = await hub.sql`select id from organizations where slug = 'acme'`;
  const [account] =
    await hub.sql`insert into accounts (email, name, password_hash) values (${email}, 'Mia', ${await hashPassword(PASSWORD)}) returning id`;
  await hub.sql`insert into organization_members (organization_id, account_id, role) values (${org?.id as string}, ${account?.id as string}, 'member')`;
  return signIn(hub, email);
}

/** Ada owns `acme` (with the project `app`) and `beta`; her current organization is `beta`. */
async function arrange(hub: Hub): Promise<string> {
  const owner = await setUpOwner(hub);
  expect((await form(hub, '/account/organizations', { slug: 'beta', name: 'Beta' }, { cookie: owner })).status).toBe(
    303,
  );
  const project = await call(hub, 'POST', '/api/admin/v1/organizations/acme/projects', {
    token: hub.adminToken,
    body: { slug: 'app', name: 'App' },
  });
  expect(project.status).toBe(201);
  return owner;
}

const organizationId = async (hub: Hub, slug: string) =>
  ((await hub.sql`select id from organizations where slug = ${slug}`)[0]?.id ?? '') as string;

describe.each(databases)('the verification page on the %s database', (kind) => {
  let hub: Hub;
  let owner = '';

  beforeAll(async () => {
    hub = await hubOn(kind, { HUB_DEVICE_POLL_INTERVAL_SECONDS: '1' });
    owner = await arrange(hub);
  }, 120_000);
  afterAll(async () => hub?.close());

  it('sends a signed-out visit to sign in, and back to the page with its code', async () => {
    const visit = await page(hub, '/device?user_code=bcdf-ghjk');
    expect(visit.status).toBe(303);
    const signInAt = visit.headers.get('location') as string;
    expect(signInAt).toBe(`/sign-in?next=${encodeURIComponent('/device?user_code=BCDF-GHJK')}`);
    expect(await (await page(hub, signInAt)).text()).toContain(
      '<input type="hidden" name="next" value="/device?user_code=BCDF-GHJK"/>',
    );
    const signedIn = await form(hub, '/sign-in', {
      email: 'ada@example.com',
      password: PASSWORD,
      next: '/device?user_code=BCDF-GHJK',
    });
    expect(signedIn.headers.get('location')).toBe('/device?user_code=BCDF-GHJK');
    const back = await page(hub, '/device?user_code=BCDF-GHJK', cookieOf(signedIn));
    expect(back.status).toBe(200);
    expect(await back.text()).toMatch(/<input id="user-code"[^>]* value="BCDF-GHJK"/);
  });

  it('goes to the keys after signing in when next leaves the site', async () => {
    for (const next of ['//evil.example/device', '/\\evil.example', 'https://evil.example/']) {
      const signedIn = await form(hub, '/sign-in', { email: 'ada@example.com', password: PASSWORD, next });
      expect(signedIn.headers.get('location')).toBe('/keys');
      expect(
        (await page(hub, `/sign-in?next=${encodeURIComponent(next)}`, cookieOf(signedIn))).headers.get('location'),
      ).toBe('/keys');
    }
  });

  it('answers an unknown or malformed code with 422 and the form, never the code', async () => {
    for (const typed of ['BCDF-BCDF', 'nope']) {
      const answer = await form(hub, '/device', { user_code: typed }, { cookie: owner });
      expect(answer.status).toBe(422);
      const html = await answer.text();
      expect(html).toContain('action="/device"');
      expect(html).toContain('role="alert"');
      expect(html).not.toContain(typed);
      expect(html).not.toContain('action="/device/approve"');
    }
  });

  it('refuses a cross-site POST with 403, and approves nothing', async () => {
    const device = await deviceAuthorization(hub);
    const fields = { user_code: device.user_code, organization: await organizationId(hub, 'acme') };
    for (const origin of ['https://evil.example', null]) {
      expect((await form(hub, '/device/approve', fields, { cookie: owner, origin })).status).toBe(403);
      expect((await form(hub, '/device', { user_code: device.user_code }, { cookie: owner, origin })).status).toBe(403);
    }
    expect(await redeem(hub, device.device_code)).toMatchObject({
      status: 400,
      body: { error: 'authorization_pending' },
    });
  });

  it('shows what asks, and a denial makes the CLI get access_denied', async () => {
    const device = await deviceAuthorization(hub);
    const confirm = await form(
      hub,
      '/device',
      { user_code: device.user_code.toLowerCase().replace('-', '') },
      { cookie: owner },
    );
    expect(confirm.status).toBe(200);
    const html = await confirm.text();
    for (const text of [
      device.user_code,
      'hub-cli',
      'laptop.example',
      'projects:read',
      'daemons:enroll',
      'Approve only a login you started yourself',
      '<select id="organization-choice"',
    ]) {
      expect(html).toContain(text);
    }
    expect(html).toContain(`<option value="${await organizationId(hub, 'beta')}" selected>`);
    const denied = await form(hub, '/device/deny', { user_code: device.user_code }, { cookie: owner });
    expect(denied.status).toBe(200);
    expect(await denied.text()).toContain('CLI login denied');
    expect(await redeem(hub, device.device_code)).toMatchObject({ status: 400, body: { error: 'access_denied' } });
    expect((await form(hub, '/device', { user_code: device.user_code }, { cookie: owner })).status).toBe(422);
  });

  it('refuses an organization the person is not a member of with 403, and a decided code with 422', async () => {
    const device = await deviceAuthorization(hub);
    const foreign = await form(
      hub,
      '/device/approve',
      { user_code: device.user_code, organization: randomUUID() },
      { cookie: owner },
    );
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toContain('not a member');
    const approved = await form(
      hub,
      '/device/approve',
      { user_code: device.user_code, organization: await organizationId(hub, 'acme') },
      { cookie: owner },
    );
    expect(approved.status).toBe(200);
    expect(await approved.text()).toContain('Return to your terminal: hub login finishes by itself');
    const again = await form(
      hub,
      '/device/approve',
      { user_code: device.user_code, organization: await organizationId(hub, 'acme') },
      { cookie: owner },
    );
    expect(again.status).toBe(422);
    expect(await again.text()).not.toContain(device.user_code);
    const { status, body } = await redeem(hub, device.device_code);
    expect(status).toBe(200);
    expect(body.access_token).toMatch(/^hub_cli_[0-9A-Za-z]{38}$/);
    // Acme's audit page tells who approved it, and for which host (the owner works in Beta, made last).
    expect((await form(hub, '/organization', { slug: 'acme' }, { cookie: owner })).status).toBe(303);
    const audit = await (await page(hub, '/audit', owner)).text();
    expect((await form(hub, '/organization', { slug: 'beta' }, { cookie: owner })).status).toBe(303);
    expect(audit).toContain('CLI login approved');
    expect(audit).toContain((body.access_token as string).slice(0, 16));
    expect(audit).toContain('laptop.example');
  });

  it('throttles a person who types unknown codes, with 429', async () => {
    const guesser = await member(hub, 'mia@example.com');
    const statuses: number[] = [];
    for (let guess = 0; guess < 30 && statuses.at(-1) !== 429; guess += 1) {
      statuses.push((await form(hub, '/device', { user_code: 'BCDF-BCDF' }, { cookie: guesser })).status);
    }
    expect(statuses.at(-1)).toBe(429);
    expect(new Set(statuses.slice(0, -1))).toEqual(new Set([422]));
    const device = await deviceAuthorization(hub);
    const throttled = await form(hub, '/device', { user_code: device.user_code }, { cookie: guesser });
    expect(throttled.status).toBe(429);
    expect(await throttled.text()).not.toContain(device.user_code);
  });
});

describe.skipIf(!browsable).each(databases)('hub login approved in a browser, on the %s database', (kind) => {
  let hub: Hub;
  let browser: Browser;

  beforeAll(async () => {
    hub = await hubOn(kind, { HUB_DEVICE_POLL_INTERVAL_SECONDS: '1' });
    await arrange(hub);
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await hub?.close();
  });

  it('signs in, confirms the code, approves it for a chosen organization; the credential works until revoked on the account page', async () => {
    const device = await deviceAuthorization(hub);
    const context = await browser.newContext();
    const tab = await context.newPage();
    const refused: string[] = [];
    tab.on('console', (message) => message.type() === 'error' && refused.push(message.text()));
    await tab.goto(device.verification_uri_complete);
    expect(new URL(tab.url()).pathname).toBe('/sign-in');
    await tab.fill('#email', 'ada@example.com');
    await tab.fill('#password', PASSWORD);
    await Promise.all([tab.waitForURL((url) => url.pathname === '/device'), tab.click('button[type=submit]')]);
    expect(new URL(tab.url()).searchParams.get('user_code')).toBe(device.user_code);
    expect(await tab.inputValue('#user-code')).toBe(device.user_code);
    await shoot(tab, 'device-form');

    await Promise.all([tab.waitForLoadState(), tab.click('form[action="/device"] button[type=submit]')]);
    expect(await tab.textContent('main')).toContain('laptop.example');
    await tab.selectOption('#organization-choice', { label: 'Acme' });
    await shoot(tab, 'device-confirm');
    await Promise.all([tab.waitForLoadState(), tab.click('button:text-is("Approve")')]);
    expect(await tab.textContent('main')).toContain('Return to your terminal: hub login finishes by itself');
    await shoot(tab, 'device-approved');

    const { status, body } = await redeem(hub, device.device_code);
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer' });
    const credential = body.access_token as string;
    expect(credential).toMatch(/^hub_cli_[0-9A-Za-z]{38}$/);
    const projects = await call(hub, 'GET', '/api/v1/projects', { token: credential });
    expect(projects.status).toBe(200);
    expect(projects.body.projects.map((project: { slug: string }) => project.slug)).toEqual(['app']);

    // The longest host name a CLI may send, in one piece: the list must still fit a phone.
    const long = await deviceAuthorization(hub, `build-${'x'.repeat(241)}.example`);
    await tab.goto(`${hub.url}/device`);
    await tab.fill('#user-code', long.user_code);
    await Promise.all([tab.waitForLoadState(), tab.click('form[action="/device"] button[type=submit]')]);
    await shoot(tab, 'device-confirm-long-host');
    await Promise.all([tab.waitForLoadState(), tab.click('button:text-is("Approve")')]);
    expect((await redeem(hub, long.device_code)).status).toBe(200);

    await tab.goto(`${hub.url}/account`);
    expect(await tab.locator('table.cli-logins tbody tr', { hasText: '.example' }).count()).toBe(2);
    const row = tab.locator('table.cli-logins tbody tr', { hasText: credential.slice(0, 16) });
    expect(await row.textContent()).toContain('laptop.example');
    expect(await row.textContent()).toContain('Acme');
    expect(await tab.content()).not.toContain(credential);
    await shoot(tab, 'account-cli-logins');
    await Promise.all([tab.waitForURL(/revoked=cli-login/), row.locator('button', { hasText: 'Revoke' }).click()]);
    expect(
      await tab.locator('table.cli-logins tbody tr', { hasText: credential.slice(0, 16) }).textContent(),
    ).toContain('revoked');
    expect((await call(hub, 'GET', '/api/v1/projects', { token: credential })).status).toBe(401);
    await shoot(tab, 'account-cli-logins-revoked');
    expect(refused).toEqual([]);
    await context.close();
  }, 60_000);
});
