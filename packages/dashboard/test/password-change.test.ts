// A password change in Chromium (issue 24): the person's CLI logins die with it, in every
// organization, the account page says so, and the audit page lists the change and each revocation.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardStore } from '../../server/src/dashboard/store.js';
import { call } from '../../server/test/support/client.js';
import { hubOn } from '../../server/test/support/hub.js';
import { browsable, launchBrowser, shoot } from './support/browser.js';
import { arrange, PASSWORD, type Hub } from './support/hub-session.js';

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const NEW_PASSWORD = 'a brand new long passphrase';

describe.skipIf(!browsable)('a password change in a browser', () => {
  let hub: Hub;
  let browser: Browser;

  beforeAll(async () => {
    hub = await hubOn('external', { HUB_DEVICE_POLL_INTERVAL_SECONDS: '1' });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await hub?.close();
  });

  const post = (path: string, fields: Record<string, string>) =>
    call(hub, 'POST', path, {
      raw: new URLSearchParams(fields).toString(),
      contentType: 'application/x-www-form-urlencoded',
    });

  it('revokes the CLI logins, says so, and the audit page lists it, at 375 and 1280 px', async () => {
    const { owner } = await arrange(hub);
    const [ada] = await hub.sql`select a.id, m.organization_id from accounts a
      join organization_members m on m.account_id = a.id where a.email = 'ada@example.com'`;
    const started = await post('/oauth/device_authorization', { client_id: 'hub-cli', hostname: 'ada-laptop' });
    expect(
      await dashboardStore(hub.sql).approveDevice(
        ada?.id as string,
        started.body.user_code as string,
        ada?.organization_id as string,
        '127.0.0.1',
      ),
    ).toBe('approved');
    const issued = await post('/oauth/token', {
      grant_type: GRANT,
      device_code: started.body.device_code as string,
      client_id: 'hub-cli',
    });
    const token = issued.body.access_token as string;
    expect((await call(hub, 'GET', '/api/v1/projects', { token })).status).toBe(200);
    // An older login, unused for 100 days: expired, and listed so.
    await hub.sql`insert into api_keys (organization_id, name, prefix, digest, scopes, kind, account_id, host, created_at)
      values (${ada?.organization_id as string}, 'hub login on old-box', 'hub_cli_0ldB0x1', decode(md5('old-box'), 'hex'),
        ${['projects:read']}, 'cli', ${ada?.id as string}, 'old-box', now() - interval '100 days')`;

    const context = await browser.newContext();
    const [name, value] = owner.split('=') as [string, string];
    await context.addCookies([{ name, value, url: hub.url }]);
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (message) => message.type() === 'error' && refused.push(message.text()));
    await page.goto(`${hub.url}/account`);
    const logins = (await page.textContent('main')) ?? '';
    expect(logins).toMatch(/old-box.*expired/s);
    expect(logins).toMatch(/ada-laptop.*active/s);
    await shoot(page, 'account-cli-login-expired');
    await page.fill('#current-password', PASSWORD);
    await page.fill('#new-password', NEW_PASSWORD);
    await page.fill('#repeat-password', NEW_PASSWORD);
    await Promise.all([page.waitForURL(/changed=password/), page.click('form[action="/account/password"] button')]);
    expect(await page.textContent('main')).toContain('your CLI logins are revoked (run hub login again)');
    await shoot(page, 'account-password-changed');
    expect((await call(hub, 'GET', '/api/v1/projects', { token })).status).toBe(401);

    await page.goto(`${hub.url}/audit`);
    const audit = (await page.textContent('table.audit')) ?? '';
    expect(audit).toContain('Password changed');
    expect(audit).toContain('CLI login revoked');
    await shoot(page, 'audit-password-changed');
    expect(refused).toEqual([]);
    await context.close();
  }, 90_000);
});
