// An owner links an installation in the dashboard only with GitHub's word that they administer it
// (DECISIONS.md, GitHub): the app's installation with user authorization sends them back with the
// installation and a code, or GitHub's authorization alone lists what they reach. A real hub, and
// the GitHub stand-in (server/test/support/github) for GitHub, on github.com's layout and an
// Enterprise Server's; in Chromium the whole trip, through the stand-in's pages.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../server/test/support/client.js';
import { startGitHubStandIn, type GitHubStandIn } from '../../server/test/support/github/index.js';
import { hubOn } from '../../server/test/support/hub.js';
import { browsable, launchBrowser, shoot } from './support/browser.js';
import { arrange, form, page, type Hub } from './support/hub-session.js';

/** The href of the link whose text is `text`. */
function linkTo(html: string, text: string): string {
  const match = new RegExp(`href="([^"]+)"[^>]*>\\s*${text}`).exec(html);
  if (match === null) throw new Error(`no link "${text}"`);
  return (match[1] as string).replaceAll('&amp;', '&');
}

/** Where GitHub (the stand-in) sends the browser from `url`: its Location, made relative to the hub. */
async function githubSends(url: string, hub: Hub): Promise<string> {
  const answer = await fetch(url, { redirect: 'manual' });
  expect(answer.status, await answer.clone().text()).toBe(302);
  const location = answer.headers.get('location') as string;
  expect(location.startsWith(`${hub.url}/settings/github/setup?`)).toBe(true);
  return location.slice(hub.url.length);
}

async function hubWith(gh: GitHubStandIn, dir: string): Promise<Hub> {
  const keyFile = join(dir, `${gh.slug}.pem`);
  writeFileSync(keyFile, gh.privateKeyPem);
  const hub = await hubOn('external', {
    HUB_GITHUB_APP_ID: String(gh.appId),
    HUB_GITHUB_APP_SLUG: gh.slug,
    HUB_GITHUB_PRIVATE_KEY_FILE: keyFile,
    HUB_GITHUB_WEBHOOK_SECRET: gh.webhookSecret,
    HUB_GITHUB_API_URL: gh.apiUrl,
    HUB_GITHUB_URL: gh.webUrl,
    HUB_GITHUB_CLIENT_ID: gh.clientId,
    HUB_GITHUB_CLIENT_SECRET: gh.clientSecret,
  });
  gh.setupUrl = `${hub.url}/settings/github/setup`;
  return hub;
}

const linked = (hub: Hub) =>
  hub.sql<{ id: number; org: string; login: string | null; by: string | null }[]>`
    select i.installation_id::int as id, o.slug as org, i.account_login as login, a.name as by
    from github_installations i join organizations o on o.id = i.organization_id
    left join accounts a on a.id = i.linked_by_account order by i.installation_id`;

describe('linking an installation in the dashboard, with GitHub’s proof', () => {
  let gh: GitHubStandIn;
  let hub: Hub;
  let owner = '';
  let browser: Browser | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'hub-github-'));

  beforeAll(async () => {
    gh = await startGitHubStandIn({ appId: 4321, slug: 'hub-bot' });
    // Added oldest first: the install page installs the newest one its user administers.
    gh.addInstallation({ id: 303, account: { login: 'ada-gh', type: 'User' }, repositories: [], users: ['ada-gh'] });
    gh.addInstallation({
      id: 404,
      account: { login: 'globex', type: 'Organization' },
      repositories: [],
      users: ['ada-gh'],
    });
    gh.addInstallation({
      id: 202,
      account: { login: 'other-org', type: 'Organization' },
      repositories: [],
      users: ['eve'],
    });
    gh.addInstallation({
      id: 101,
      account: { login: 'acme-corp', type: 'Organization' },
      repositories: ['acme-corp/app'],
      users: ['ada-gh'],
    });
    hub = await hubWith(gh, dir);
    ({ owner } = await arrange(hub));
    await call(hub, 'POST', '/api/admin/v1/organizations', {
      token: hub.adminToken,
      body: { slug: 'globex', name: 'Globex' },
    });
    const other = await call(hub, 'POST', '/api/admin/v1/organizations/globex/github-installations', {
      token: hub.adminToken,
      body: { installationId: 404 },
    });
    // The operator's link asked GitHub (the app's JWT) for the account.
    expect(other.body).toMatchObject({ installationId: 404, accountLogin: 'globex', accountType: 'Organization' });
    if (browsable) browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await hub?.close();
    await gh?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('installs the app with user authorization: GitHub lists the installation as the owner’s, so it is linked', async () => {
    gh.authorizeUser('ada-gh');
    const settings = await (await page(hub, '/settings/github', owner)).text();
    const install = linkTo(settings, 'Install the app on GitHub');
    expect(install.startsWith(`${gh.webUrl}/apps/hub-bot/installations/new?state=`)).toBe(true);
    const back = await githubSends(install, hub);
    expect(back).toMatch(/installation_id=101&setup_action=install&code=\w+&state=/);
    const answer = await page(hub, back, owner);
    expect(answer.status, await answer.clone().text()).toBe(303);
    expect(answer.headers.get('location')).toBe('/settings/github?linked=101');
    expect(await linked(hub)).toContainEqual({ id: 101, org: 'acme', login: 'acme-corp', by: 'Ada' });
    const [event] =
      await hub.sql`select actor_kind, subject from audit_events where kind = 'github_installation.linked' and actor_kind = 'account'`;
    expect(event?.subject).toEqual({ installationId: 101, account: 'acme-corp' });
    // GitHub's code works once: the same answer again is refused by GitHub, and links nothing new.
    const again = await page(hub, back, owner);
    expect(again.status).toBe(502);
    expect(await again.text()).toContain('The code passed is incorrect or expired.');
  });

  it('refuses an installation GitHub does not list as the owner’s, and one linked to another organization', async () => {
    gh.authorizeUser('mallory');
    const settings = await (await page(hub, '/settings/github', owner)).text();
    const back = await githubSends(linkTo(settings, 'Link an installation you administer'), hub);
    const refused = await page(hub, `${back}&installation_id=202&setup_action=install`, owner);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('GitHub does not list the installation 202');
    gh.authorizeUser('ada-gh');
    const again = await githubSends(
      linkTo(await (await page(hub, '/settings/github', owner)).text(), 'Link an installation you administer'),
      hub,
    );
    const taken = await page(hub, `${again}&installation_id=404&setup_action=install`, owner);
    expect(taken.status).toBe(409);
    expect(await taken.text()).toContain('linked to another organization of this hub');
    expect((await linked(hub)).map((row) => [row.id, row.org])).toEqual([
      [101, 'acme'],
      [404, 'globex'],
    ]);
  });

  it('lists what the owner administers and links the one they choose, with the account GitHub named', async () => {
    gh.authorizeUser('ada-gh');
    const settings = await (await page(hub, '/settings/github', owner)).text();
    const choice = await page(
      hub,
      await githubSends(linkTo(settings, 'Link an installation you administer'), hub),
      owner,
    );
    expect(choice.status).toBe(200);
    const html = await choice.text();
    expect(html).toMatch(/<code>acme-corp<\/code>[\s\S]*<code>101<\/code>[\s\S]*linked here/);
    expect(html).toMatch(/<code>globex<\/code>[\s\S]*<code>404<\/code>[\s\S]*linked to another organization/);
    expect(html).not.toContain('<code>202</code>');
    const fields = Object.fromEntries(
      [...html.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)"/g)].map((match) => [match[1], match[2]]),
    ) as Record<string, string>;
    expect(fields).toMatchObject({ installationId: '303', login: 'ada-gh', type: 'User' });
    // The offer is this organization's: changed in any field, it links nothing.
    expect(
      (await form(hub, '/settings/github/installations', { ...fields, installationId: '202' }, { cookie: owner }))
        .status,
    ).toBe(400);
    const chosen = await form(hub, '/settings/github/installations', fields, { cookie: owner });
    expect(chosen.status).toBe(303);
    expect(chosen.headers.get('location')).toBe('/settings/github?linked=303');
    expect(await linked(hub)).toContainEqual({ id: 303, org: 'acme', login: 'ada-gh', by: 'Ada' });
    const shown = await (await page(hub, '/settings/github?linked=303', owner)).text();
    expect(shown).toContain('The installation 303 is linked to this organization');
    expect(shown).toMatch(/<code>ada-gh<\/code> <span class="muted">\(user\)<\/span>/);
    // Everything the hub asked of GitHub was as GitHub documents it; only the reused code was refused.
    expect(gh.rejected.map((rejection) => rejection.why)).toEqual(['token exchange: bad_verification_code']);
  });

  it.skipIf(!browsable)('in Chromium: the whole trip through GitHub’s pages, at 375 and 1280 px', async () => {
    await hub.sql`delete from github_installations where installation_id = 303`;
    gh.authorizeUser('ada-gh');
    const context = await (browser as Browser).newContext();
    const [name, value] = [owner.slice(0, owner.indexOf('=')), owner.slice(owner.indexOf('=') + 1)];
    await context.addCookies([{ name, value, url: hub.url }]);
    const tab = await context.newPage();
    await tab.goto(`${hub.url}/settings/github`);
    await tab.click('text=Link an installation you administer');
    await expect.poll(() => tab.url()).toMatch(/\/settings\/github\/setup\?code=/);
    await shoot(tab, 'github-choose');
    await tab.click('form button:has-text("Link")');
    await expect.poll(() => tab.url()).toMatch(/\/settings\/github\?linked=303$/);
    await shoot(tab, 'github-linked');
    await tab.goto(`${hub.url}/settings/github/setup?installation_id=202&code=x&state=y`);
    await shoot(tab, 'github-refused');
    await context.close();
  });
});

describe('on a GitHub Enterprise Server', () => {
  it('installs from /github-apps/<slug>, and links with the same proof', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hub-ghes-'));
    const gh = await startGitHubStandIn({ slug: 'hub-ghes', enterprise: true });
    const hub = await hubWith(gh, dir);
    try {
      gh.addInstallation({
        id: 7,
        account: { login: 'eng', type: 'Organization' },
        repositories: [],
        users: ['ada-gh'],
      });
      gh.authorizeUser('ada-gh');
      const { owner } = await arrange(hub);
      const install = linkTo(await (await page(hub, '/settings/github', owner)).text(), 'Install the app on GitHub');
      expect(install.startsWith(`${gh.installUrl}?state=`)).toBe(true);
      const answer = await page(hub, await githubSends(install, hub), owner);
      expect(answer.headers.get('location')).toBe('/settings/github?linked=7');
      expect(await linked(hub)).toEqual([{ id: 7, org: 'acme', login: 'eng', by: 'Ada' }]);
      expect(gh.rejected).toEqual([]);
    } finally {
      await hub.close();
      await gh.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
