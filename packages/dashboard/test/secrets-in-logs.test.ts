// Nothing the hub writes carries a link's or a login's secret (issue 24, finding 4): a real hub (a
// child process, on its embedded PostgreSQL, logging everything down to debug) goes through setup,
// two invitations (a sign-up and a refusal), `hub login` approved and denied on the verification
// page, and the CLI credential's use and revocation; then everything it printed is searched for
// every secret it handed out. The setup link is printed once on purpose (it is how the operator
// gets it, docs/decisions.md): that line alone may hold the setup token.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubOn } from '../../server/test/support/hub.js';
import { cookieOf, form, page, PASSWORD, setupLink, type Hub } from './support/hub-pages.js';
import { oauthForm } from '../../server/test/support/cli-login.js';

const INVITATION = /\/invitations\/([A-Za-z0-9_-]{43})/;
const BANNER = 'Set up the hub (one time; also in ';

/** What `hub login` does: a device request, its user code typed on the page, and its poll. */
async function deviceRequest(hub: Hub): Promise<{ userCode: string; deviceCode: string }> {
  const started = await oauthForm(hub, '/oauth/device_authorization', {
    client_id: 'hub-cli',
    hostname: 'laptop.example',
  });
  expect(started.status).toBe(200);
  return { userCode: started.body.user_code, deviceCode: started.body.device_code };
}

async function poll(hub: Hub, deviceCode: string): Promise<Record<string, string>> {
  const grant = 'urn:ietf:params:oauth:grant-type:device_code';
  return (await oauthForm(hub, '/oauth/token', { grant_type: grant, device_code: deviceCode, client_id: 'hub-cli' }))
    .body as Record<string, string>;
}

describe('the secrets of a full run, in what the hub printed', () => {
  let hub: Hub;

  beforeAll(async () => {
    hub = await hubOn('embedded', { HUB_LOG_LEVEL: 'debug', HUB_DEVICE_POLL_INTERVAL_SECONDS: '1' });
  }, 120_000);
  afterAll(async () => hub?.close());

  it('prints no invitation, setup, device or credential secret, but the setup link once', async () => {
    const secrets: Record<string, string> = {};

    // Setup: the page of the link, a wrong token, a path the link never has, and the real form.
    const setupToken = new URL(setupLink(hub)).searchParams.get('token') as string;
    secrets.setup = setupToken;
    expect((await page(hub, `/setup?token=${setupToken}`)).status).toBe(200);
    expect((await page(hub, `/setup/${setupToken}`)).status).toBe(404);
    const owner = {
      name: 'Ada',
      email: 'ada@example.com',
      password: PASSWORD,
      slug: 'acme',
      organizationName: 'Acme',
    };
    expect((await form(hub, '/setup', { ...owner, token: `${setupToken}x` })).status).toBe(403);
    const setUp = await form(hub, '/setup', { ...owner, token: setupToken });
    expect(setUp.status).toBe(303);
    const ada = cookieOf(setUp);
    secrets.adaSession = ada.split('=')[1] as string;

    // An invitation a new account signs up with; then opened again (used), and accepted again (refused).
    const invite = async () => {
      const created = await form(hub, '/members/invitations', { role: 'member' }, { cookie: ada });
      expect(created.status).toBe(201);
      return INVITATION.exec(await created.text())?.[1] as string;
    };
    const first = await invite();
    secrets.invitation = first;
    expect((await page(hub, `/invitations/${first}`)).status).toBe(200);
    const signedUp = await form(hub, `/invitations/${first}`, {
      name: 'Mia',
      email: 'mia@example.com',
      password: PASSWORD,
    });
    expect(signedUp.status).toBe(303);
    const mia = cookieOf(signedUp);
    secrets.miaSession = mia.split('=')[1] as string;
    expect((await page(hub, `/invitations/${first}`)).status).not.toBe(200);
    const second = await invite();
    secrets.secondInvitation = second;
    expect((await page(hub, `/invitations/${second}`, mia)).status).toBe(200);
    expect((await form(hub, `/invitations/${second}`, {}, { cookie: mia })).status).not.toBe(303);
    const unknown = randomBytes(32).toString('base64url');
    secrets.unknownInvitation = unknown;
    expect((await page(hub, `/invitations/${unknown}`)).status).toBe(404);

    // `hub login`, approved: the link of the terminal, signing in on the way, the code typed, the poll.
    const approved = await deviceRequest(hub);
    secrets.userCode = approved.userCode;
    secrets.deviceCode = approved.deviceCode;
    const complete = `/device?user_code=${approved.userCode}`;
    const visit = await page(hub, complete);
    expect(visit.status).toBe(303);
    expect((await page(hub, visit.headers.get('location') as string)).status).toBe(200);
    const signedIn = await form(hub, '/sign-in', { email: 'mia@example.com', password: PASSWORD, next: complete });
    expect(signedIn.status).toBe(303);
    const miaAgain = cookieOf(signedIn);
    secrets.miaSecondSession = miaAgain.split('=')[1] as string;
    expect((await page(hub, complete, miaAgain)).status).toBe(200);
    const typed = approved.userCode.replace('-', '').toLowerCase();
    expect((await form(hub, '/device', { user_code: typed }, { cookie: miaAgain })).status).toBe(200);
    const [acme] = await hub.sql`select id from organizations where slug = 'acme'`;
    const approval = await form(
      hub,
      '/device/approve',
      { user_code: typed, organization: acme?.id as string },
      { cookie: miaAgain },
    );
    expect(approval.status).toBe(200);
    const issued = await poll(hub, approved.deviceCode);
    const credential = issued.access_token as string;
    expect(credential).toMatch(/^hub_cli_/);
    secrets.credential = credential;
    expect(
      (await fetch(`${hub.url}/api/v1/credential`, { headers: { authorization: `Bearer ${credential}` } })).status,
    ).toBe(200);
    expect((await poll(hub, approved.deviceCode)).error).toBe('invalid_grant');
    const revoked = await fetch(`${hub.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: 'hub-cli', token: credential }),
    });
    expect(revoked.status).toBe(200);
    expect(
      (await fetch(`${hub.url}/api/v1/credential`, { headers: { authorization: `Bearer ${credential}` } })).status,
    ).toBe(401);

    // `hub login`, denied; and decisions on it once decided.
    const denied = await deviceRequest(hub);
    secrets.deniedUserCode = denied.userCode;
    secrets.deniedDeviceCode = denied.deviceCode;
    expect((await form(hub, '/device/deny', { user_code: denied.userCode }, { cookie: ada })).status).toBe(200);
    expect((await form(hub, '/device/deny', { user_code: denied.userCode }, { cookie: ada })).status).toBe(422);
    expect((await poll(hub, denied.deviceCode)).error).toBe('access_denied');

    // Everything printed, once the hub has stopped and said so.
    expect(await hub.stop()).toBe(0);
    const printed = hub.output();
    const forms = (secret: string) => {
      const bare = secret.replace('-', '');
      return /^[A-Z]{4}-[A-Z]{4}$/.test(secret) ? [secret, bare, bare.toLowerCase(), secret.toLowerCase()] : [secret];
    };
    // Every line holding a secret (the setup token's banner aside), to be none.
    const lines = printed.split('\n');
    const leaks: string[] = [];
    for (const [name, secret] of Object.entries(secrets))
      for (const form of forms(secret))
        for (const line of lines.filter((printedLine) => printedLine.includes(form)))
          if (!(name === 'setup' && line.startsWith(BANNER))) leaks.push(`${name} (${form}): ${line}`);
    expect(leaks).toEqual([]);
    expect(lines.filter((line) => line.startsWith(BANNER) && line.includes(setupToken))).toHaveLength(1);
    // The request log was written, with the links' paths redacted.
    expect(printed).toContain('"message":"request"');
    expect(printed).toContain('/invitations/[redacted]');
  }, 120_000);
});
