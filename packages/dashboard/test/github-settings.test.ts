// Settings → GitHub on a hub whose GitHub App is configured with its OAuth credentials, GitHub
// itself out of reach (a closed port): what owners and members see, and every refusal of the
// linking flow that needs no answer from GitHub. The flows GitHub answers are github-oauth.test.ts.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../server/test/support/client.js';
import { hubOn } from '../../server/test/support/hub.js';
import { browsable, launchBrowser, shoot } from './support/browser.js';
import { arrange, form, page, type Hub } from './support/hub-session.js';

const GITHUB = 'http://127.0.0.1:9';

/** The href of the link whose text is `text`, decoded. */
function linkTo(html: string, text: string): URL {
  const match = new RegExp(`href="([^"]+)"[^>]*>\\s*${text}`).exec(html);
  if (match === null) throw new Error(`no link "${text}"`);
  return new URL((match[1] as string).replaceAll('&amp;', '&'));
}

describe('Settings → GitHub, with the GitHub App configured', () => {
  let hub: Hub;
  let owner = '';
  let member = '';
  let browser: Browser | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'hub-github-key-'));

  beforeAll(async () => {
    const keyFile = join(dir, 'app.pem');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs1', format: 'pem' }));
    hub = await hubOn('external', {
      HUB_GITHUB_APP_ID: '1234',
      HUB_GITHUB_APP_SLUG: 'hub-test',
      HUB_GITHUB_PRIVATE_KEY_FILE: keyFile,
      HUB_GITHUB_WEBHOOK_SECRET: 'secret',
      HUB_GITHUB_API_URL: `${GITHUB}/api/v3`,
      HUB_GITHUB_CLIENT_ID: 'Iv1.client',
      HUB_GITHUB_CLIENT_SECRET: 'client-secret',
    });
    ({ owner, member } = await arrange(hub));
    await call(hub, 'POST', '/api/admin/v1/organizations/acme/github-installations', {
      token: hub.adminToken,
      body: { installationId: 4242 },
    });
    if (browsable) browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await hub?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('offers owners GitHub’s installation and authorization, each with a state of their session', async () => {
    const html = await (await page(hub, '/settings/github', owner)).text();
    expect(html).toContain(`<a href="${GITHUB}/apps/hub-test">hub-test</a>`);
    const install = linkTo(html, 'Install the app on GitHub');
    // An Enterprise Server (its API under /api/v3) installs apps under /github-apps/.
    expect(`${install.origin}${install.pathname}`).toBe(`${GITHUB}/github-apps/hub-test/installations/new`);
    const authorize = linkTo(html, 'Link an installation you administer');
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${GITHUB}/login/oauth/authorize`);
    expect(authorize.searchParams.get('client_id')).toBe('Iv1.client');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${hub.url}/settings/github/setup`);
    expect(install.searchParams.get('state')).toMatch(/^[0-9a-z]+\.[\w-]{16}\.[\w-]{43}$/);
    expect(authorize.searchParams.get('state')).not.toBe(install.searchParams.get('state'));
    expect(html).toContain(`<code>${hub.url}/settings/github/setup</code>`);
    expect(html).toContain('>Unlink</button>');
    expect(html).not.toContain('client-secret');
  });

  it('shows members the same without the buttons, and refuses their links and unlinks', async () => {
    const html = await (await page(hub, '/settings/github', member)).text();
    expect(html).toContain('Owners of the organization link and unlink installations.');
    expect(html).toContain('<code>4242</code>');
    expect(html).not.toContain('Install the app on GitHub');
    expect(html).not.toContain('>Unlink</button>');
    expect((await page(hub, '/settings/github/setup?installation_id=5&code=x&state=y', member)).status).toBe(403);
    expect((await form(hub, '/settings/github/installations/4242/unlink', {}, { cookie: member })).status).toBe(403);
    expect(
      (await form(hub, '/settings/github/installations', { installationId: '5' }, { cookie: member })).status,
    ).toBe(403);
  });

  it('refuses GitHub’s answer without this session’s state, and says when GitHub does not answer', async () => {
    const html = await (await page(hub, '/settings/github', owner)).text();
    const state = linkTo(html, 'Link an installation you administer').searchParams.get('state') as string;
    for (const wrong of ['', 'x', state.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A')), `${state}x`]) {
      const refused = await page(hub, `/settings/github/setup?code=abc&state=${encodeURIComponent(wrong)}`, owner);
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain('was not asked for by your session here');
    }
    // Another session's state is not this one's.
    const other = await form(hub, '/sign-in', { email: 'ada@example.com', password: 'correct horse battery staple' });
    const otherCookie = (other.headers.get('set-cookie') ?? '').split(';')[0] as string;
    expect((await page(hub, `/settings/github/setup?code=abc&state=${state}`, otherCookie)).status).toBe(400);
    const unreachable = await page(hub, `/settings/github/setup?code=abc&state=${state}`, owner);
    expect(unreachable.status).toBe(502);
    expect(await unreachable.text()).toContain('Nothing was linked');
    const denied = await page(hub, `/settings/github/setup?error=access_denied&state=${state}`, owner);
    expect(denied.status).toBe(400);
    // Installed without user authorization: GitHub is asked who this is.
    const bare = await page(hub, '/settings/github/setup?installation_id=77&setup_action=install', owner);
    expect(bare.status).toBe(303);
    expect(bare.headers.get('location')).toMatch(
      /^http:\/\/127\.0\.0\.1:9\/login\/oauth\/authorize\?client_id=Iv1\.client&/,
    );
    // An installation already linked here: nothing to ask.
    const known = await page(hub, '/settings/github/setup?installation_id=4242&setup_action=update', owner);
    expect(known.headers.get('location')).toBe('/settings/github');
    // Signed out, GitHub's answer comes back here after signing in.
    const signedOut = await page(hub, `/settings/github/setup?code=abc&state=${state}`);
    expect(signedOut.headers.get('location')).toBe(
      `/sign-in?next=${encodeURIComponent(`/settings/github/setup?code=abc&state=${state}`)}`,
    );
  });

  it('refuses an offer to link that this session was not made, and unlinks as the owner', async () => {
    const forged = await form(
      hub,
      '/settings/github/installations',
      { installationId: '5', login: 'evil', type: 'User', expires: String(Date.now() + 60_000), proof: 'x'.repeat(43) },
      { cookie: owner },
    );
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('nothing was linked');
    expect((await hub.sql`select 1 from github_installations where installation_id = 5`).length).toBe(0);
    const unlinked = await form(hub, '/settings/github/installations/4242/unlink', {}, { cookie: owner });
    expect(unlinked.status).toBe(303);
    expect(unlinked.headers.get('location')).toBe('/settings/github?unlinked=4242');
    expect(await (await page(hub, '/settings/github?unlinked=4242', owner)).text()).toContain(
      'The installation 4242 is unlinked',
    );
    expect((await form(hub, '/settings/github/installations/4242/unlink', {}, { cookie: owner })).status).toBe(404);
    const [event] =
      await hub.sql`select actor_kind, subject from audit_events where kind = 'github_installation.unlinked'`;
    expect(event).toEqual({ actor_kind: 'account', subject: { installationId: 4242 } });
  });

  it.skipIf(!browsable)('in Chromium, at 375 and 1280 px', async () => {
    await call(hub, 'POST', '/api/admin/v1/organizations/acme/github-installations', {
      token: hub.adminToken,
      body: { installationId: 4242 },
    });
    await call(hub, 'PATCH', '/api/admin/v1/organizations/acme/projects/app', {
      token: hub.adminToken,
      body: { repository: 'acme-corp/app' },
    });
    const context = await (browser as Browser).newContext();
    const [name, value] = [owner.slice(0, owner.indexOf('=')), owner.slice(owner.indexOf('=') + 1)];
    await context.addCookies([{ name, value, url: hub.url }]);
    const tab = await context.newPage();
    await tab.goto(`${hub.url}/settings/github`);
    await shoot(tab, 'github-settings-owner');
    await tab.goto(`${hub.url}/projects/app#github`);
    await shoot(tab, 'project-repository');
    await context.close();
  });
});
