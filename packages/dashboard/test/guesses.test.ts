// Every guess at a secret is throttled (issue 24, findings 5 and 7), against a real hub (a child
// process): the current password of the password change, and the user codes of `hub login` at
// /device/approve and /device/deny, count in PostgreSQL's sign-in throttle, per account and per
// address. Each test comes from addresses of its own (the hub trusts X-Forwarded-For from loopback).
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../server/src/people/passwords.js';
import { hubOn } from '../../server/test/support/hub.js';
import { browsable, launchBrowser, shoot } from './support/browser.js';
import { form, PASSWORD, setUpOwner, type Hub } from './support/hub-pages.js';

const NEW_PASSWORD = 'a whole new password, long';
const UNKNOWN_CODE = 'BCDF-BCDF';

/** A form posted from the hub's own origin, as a browser at `address` (behind the trusted proxy) does. */
const post = (hub: Hub, path: string, fields: Record<string, string>, address: string, cookie?: string) =>
  form(hub, path, fields, { address, ...(cookie === undefined ? {} : { cookie }) });

/** A member of `acme` only, signed in from `address`. */
async function member(hub: Hub, email: string, address: string): Promise<string> {
  const [org] = await hub.sql`select id from organizations where slug = 'acme'`;
  const [account] =
    await hub.sql`insert into accounts (email, name, password_hash) values (${email}, 'Someone', ${await hashPassword(PASSWORD)}) returning id`;
  await hub.sql`insert into organization_members (organization_id, account_id, role) values (${org?.id as string}, ${account?.id as string}, 'member')`;
  const signedIn = await post(hub, '/sign-in', { email, password: PASSWORD }, address);
  expect(signedIn.status).toBe(303);
  return (signedIn.headers.get('set-cookie') ?? '').split(';')[0] as string;
}

const organizationId = async (hub: Hub, slug: string) =>
  ((await hub.sql`select id from organizations where slug = ${slug}`)[0]?.id ?? '') as string;

/** What `hub login` does first: a live user code, and its device code. */
async function deviceLogin(hub: Hub): Promise<{ userCode: string; deviceCode: string }> {
  const started = await fetch(`${hub.url}/oauth/device_authorization`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: 'hub-cli', hostname: 'laptop.example' }),
  });
  expect(started.status).toBe(200);
  const body = (await started.json()) as { user_code: string; device_code: string };
  return { userCode: body.user_code, deviceCode: body.device_code };
}

/** One poll of the token endpoint: the OAuth error, or `issued`. */
async function poll(hub: Hub, deviceCode: string): Promise<string> {
  const answer = await fetch(`${hub.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: deviceCode,
      client_id: 'hub-cli',
    }),
  });
  const body = (await answer.json()) as { error?: string; access_token?: string };
  return body.error ?? (body.access_token === undefined ? 'nothing' : 'issued');
}

/** Status and page of an answer, to compare two answers whole. */
async function answerOf(response: Response): Promise<{ status: number; html: string }> {
  return { status: response.status, html: await response.text() };
}

describe('guesses at secrets on a real hub', () => {
  let hub: Hub;
  let acme = '';
  let beta = '';

  beforeAll(async () => {
    // The external database: the throttle is PostgreSQL's either way (device.test.ts runs the pages on both).
    hub = await hubOn('external', { HUB_DEVICE_POLL_INTERVAL_SECONDS: '1', HUB_TRUST_PROXY: 'loopback' });
    const owner = await setUpOwner(hub);
    expect(
      (await post(hub, '/account/organizations', { slug: 'beta', name: 'Beta' }, '198.51.100.1', owner)).status,
    ).toBe(303);
    acme = await organizationId(hub, 'acme');
    beta = await organizationId(hub, 'beta');
  }, 120_000);
  afterAll(async () => hub?.close());

  it('refuses even the right current password after 25 wrong ones, and sign-in of that account too', async () => {
    const address = '203.0.113.10';
    const pat = await member(hub, 'pat@example.com', address);
    const change = (current: string) =>
      post(hub, '/account/password', { current, password: NEW_PASSWORD, repeat: NEW_PASSWORD }, address, pat);
    const statuses: number[] = [];
    for (let guess = 0; guess < 25; guess += 1) statuses.push((await change(`wrong guess ${guess}`)).status);
    // Five wrong passwords are told wrong (the account's limit, as sign-in's), the rest are refused unchecked.
    expect(statuses.slice(0, 5)).toEqual([403, 403, 403, 403, 403]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
    const right = await change(PASSWORD);
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await right.text()).toContain('Too many wrong passwords');
    const [row] = await hub.sql`select password_hash from accounts where email = 'pat@example.com'`;
    expect(await verifyPassword(PASSWORD, row?.password_hash as string)).toBe(true);
    // The same throttle as sign-in: the account's sign-in is refused too, from anywhere.
    const signIn = await post(hub, '/sign-in', { email: 'pat@example.com', password: PASSWORD }, '203.0.113.11');
    expect(signIn.status).toBe(429);
  });

  it('changes the password after a few wrong current ones, below the limit', async () => {
    const address = '203.0.113.20';
    const quinn = await member(hub, 'quinn@example.com', address);
    const change = (current: string) =>
      post(hub, '/account/password', { current, password: NEW_PASSWORD, repeat: NEW_PASSWORD }, address, quinn);
    expect((await change('wrong once')).status).toBe(403);
    expect((await change('wrong twice')).status).toBe(403);
    const right = await change(PASSWORD);
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/account?changed=password');
  });

  it('answers approve and deny alike for an unknown code and a live code the person may not decide', async () => {
    const address = '203.0.113.30';
    const mia = await member(hub, 'mia@example.com', address);
    const live = await deviceLogin(hub);
    // Approving for an organization that is not Mia's: the same answer whether the code is live or not.
    const unknownForeign = await answerOf(
      await post(hub, '/device/approve', { user_code: UNKNOWN_CODE, organization: beta }, address, mia),
    );
    const liveForeign = await answerOf(
      await post(hub, '/device/approve', { user_code: live.userCode, organization: beta }, address, mia),
    );
    expect(liveForeign).toEqual(unknownForeign);
    expect(liveForeign.status).toBe(403);
    const randomForeign = await answerOf(
      await post(hub, '/device/approve', { user_code: live.userCode, organization: randomUUID() }, address, mia),
    );
    expect(randomForeign).toEqual(unknownForeign);
    expect(await poll(hub, live.deviceCode)).toBe('authorization_pending');

    // A code decided already, or expired, is unknown at approve and at deny alike.
    const decided = await deviceLogin(hub);
    const owner = await member(hub, 'olga@example.com', '203.0.113.31');
    expect((await post(hub, '/device/deny', { user_code: decided.userCode }, '203.0.113.31', owner)).status).toBe(200);
    const expired = await deviceLogin(hub);
    await hub.sql`update device_authorizations set created_at = now() - interval '11 minutes', expires_at = now() - interval '1 minute' where user_code = ${expired.userCode.replace('-', '')}`;
    const unknownDeny = await answerOf(await post(hub, '/device/deny', { user_code: UNKNOWN_CODE }, address, mia));
    expect(unknownDeny.status).toBe(422);
    const unknownApprove = await answerOf(
      await post(hub, '/device/approve', { user_code: UNKNOWN_CODE, organization: acme }, address, mia),
    );
    expect(unknownApprove).toEqual(unknownDeny);
    for (const code of [decided.userCode, expired.userCode]) {
      expect(await answerOf(await post(hub, '/device/deny', { user_code: code }, address, mia))).toEqual(unknownDeny);
      expect(
        await answerOf(await post(hub, '/device/approve', { user_code: code, organization: acme }, address, mia)),
      ).toEqual(unknownDeny);
    }

    // Below the limit, the person's own live request is approved for their organization.
    const approved = await post(hub, '/device/approve', { user_code: live.userCode, organization: acme }, address, mia);
    expect(approved.status).toBe(200);
    expect(await approved.text()).toContain('CLI login approved');
    expect(await poll(hub, live.deviceCode)).toBe('issued');
  });

  it('throttles approve and deny per account after ten refused decisions, even for a right code', async () => {
    const address = '203.0.113.40';
    const eve = await member(hub, 'eve@example.com', address);
    const statuses: number[] = [];
    for (let guess = 0; guess < 30 && statuses.at(-1) !== 429; guess += 1) {
      const decision =
        guess % 2 === 0
          ? post(hub, '/device/deny', { user_code: UNKNOWN_CODE }, address, eve)
          : post(hub, '/device/approve', { user_code: UNKNOWN_CODE, organization: acme }, address, eve);
      statuses.push((await decision).status);
    }
    expect(statuses).toEqual([...Array<number>(10).fill(422), 429]);
    const live = await deviceLogin(hub);
    const approve = await post(hub, '/device/approve', { user_code: live.userCode, organization: acme }, address, eve);
    expect(approve.status).toBe(429);
    expect(Number(approve.headers.get('retry-after'))).toBeGreaterThan(0);
    const html = await approve.text();
    expect(html).toContain('Too many unknown codes');
    expect(html).not.toContain(live.userCode);
    expect((await post(hub, '/device/deny', { user_code: live.userCode }, address, eve)).status).toBe(429);
    // The page that looks codes up counts in the same throttle.
    expect((await post(hub, '/device', { user_code: live.userCode }, address, eve)).status).toBe(429);
    // From elsewhere, the account is throttled still; the request is untouched.
    expect((await post(hub, '/device/deny', { user_code: live.userCode }, '203.0.113.41', eve)).status).toBe(429);
    expect(await poll(hub, live.deviceCode)).toBe('authorization_pending');
  });

  it('throttles approve and deny per address, whichever accounts guess from it', async () => {
    const address = '203.0.113.50';
    const guessers = [
      await member(hub, 'finn@example.com', address),
      await member(hub, 'gus@example.com', address),
      await member(hub, 'hal@example.com', address),
    ];
    const statuses: number[] = [];
    for (const guesser of guessers.slice(0, 2))
      for (let guess = 0; guess < 10; guess += 1)
        statuses.push((await post(hub, '/device/deny', { user_code: UNKNOWN_CODE }, address, guesser)).status);
    expect(new Set(statuses)).toEqual(new Set([422]));
    // Twenty refused decisions from the address: a third account there is refused at its first.
    const live = await deviceLogin(hub);
    const third = guessers[2] as string;
    expect((await post(hub, '/device/deny', { user_code: live.userCode }, address, third)).status).toBe(429);
    expect(await poll(hub, live.deviceCode)).toBe('authorization_pending');
    // The same account from another address decides.
    const denied = await post(hub, '/device/deny', { user_code: live.userCode }, '203.0.113.51', third);
    expect(denied.status).toBe(200);
  });

  it.skipIf(!browsable)(
    'shows the refusals in a browser (photographed at 375 and 1280 px)',
    async () => {
      let browser: Browser | undefined;
      try {
        browser = await launchBrowser();
        const context = await browser.newContext();
        const tab = await context.newPage();
        const refused: string[] = [];
        // Refusals are answered with their status (403, 429), which Chromium reports; anything else is a fault.
        tab.on(
          'console',
          (message) =>
            message.type() === 'error' &&
            !message.text().startsWith('Failed to load resource: the server responded with a status of 4') &&
            refused.push(message.text()),
        );
        await member(hub, 'zoe@example.com', '203.0.113.60');
        await tab.goto(`${hub.url}/sign-in`);
        await tab.fill('#email', 'zoe@example.com');
        await tab.fill('#password', PASSWORD);
        await Promise.all([tab.waitForURL((url) => url.pathname === '/keys'), tab.click('button[type=submit]')]);
        const cookie = (await context.cookies()).map((item) => `${item.name}=${item.value}`).join('; ');

        // The device page's confirmation is open; meanwhile ten unknown codes were tried with this session.
        const live = await deviceLogin(hub);
        await tab.goto(`${hub.url}/device?user_code=${live.userCode}`);
        await Promise.all([tab.waitForLoadState(), tab.click('form[action="/device"] button[type=submit]')]);
        expect(await tab.textContent('main')).toContain('laptop.example');
        for (let guess = 0; guess < 10; guess += 1)
          expect((await post(hub, '/device/deny', { user_code: UNKNOWN_CODE }, '127.0.0.1', cookie)).status).toBe(422);
        await Promise.all([tab.waitForLoadState(), tab.click('button:text-is("Approve")')]);
        expect(await tab.textContent('main')).toContain('Too many unknown codes');
        await shoot(tab, 'device-approve-throttled');

        // Six wrong current passwords on the account page: the sixth is refused unchecked.
        await tab.goto(`${hub.url}/account`);
        for (let guess = 0; guess < 6; guess += 1) {
          await tab.fill('#current-password', `wrong guess ${guess}`);
          await tab.fill('#new-password', NEW_PASSWORD);
          await tab.fill('#repeat-password', NEW_PASSWORD);
          await Promise.all([tab.waitForLoadState(), tab.click('button:text-is("Change password")')]);
        }
        expect(await tab.textContent('main')).toContain('Too many wrong passwords');
        await shoot(tab, 'password-throttled');
        expect(refused).toEqual([]);
        await context.close();
      } finally {
        await browser?.close();
      }
    },
    60_000,
  );
});
