// The projects pages against real hubs (child processes) on both databases: create, deactivate and
// reactivate as an owner; a configuration installed through the API, shown with its version, its
// key and the key's maker, its YAML escaped; the history paginated; a member reads only. Then the
// pages in headless Chromium, photographed at 375 and 1280 px.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browsable, launchBrowser, shoot } from './support/browser.js';
import { hashPassword } from '../../server/src/people/passwords.js';
import { call, enrollDaemon } from '../../server/test/support/client.js';
import { configurationPartials, configurationYaml, exampleDaemons } from '../../server/test/support/documents.js';
import { databases, hubOn } from '../../server/test/support/hub.js';
import { cookieOf, dashboardKey, form, type Hub, page, PASSWORD, setupLink, setUpOwner } from './support/hub-pages.js';

const HOSTILE = `<script>alert(1)</script>"' onfocus="alert(2)`;
const ESCAPED = '&lt;script>alert(1)&lt;/script>';
const SCOPES = ['projects:read', 'configuration:install', 'daemons:enroll'];
// A comment the compiler ignores and the revision page must escape.
const yaml = `${configurationYaml}# ${HOSTILE}\n`;

/** Enrolls the daemons the example names, then installs it to `project` with `key`. */
async function install(hub: Hub, key: string, project: string) {
  for (const daemon of exampleDaemons)
    expect((await enrollDaemon(hub, key, daemon.name, daemon.runtimes)).status).toBe(201);
  return call(hub, 'POST', '/api/v1/configurations/install', {
    token: key,
    body: { projectSlug: project, yaml, partials: configurationPartials },
  });
}

const text = async (response: Response | Promise<Response>) => (await response).text();
const unescaped = (html: string) => html.includes('<script>alert(1)') || html.includes('" onfocus="alert');

describe.each(databases)('the projects pages on the %s database', (kind) => {
  let hub: Hub;
  let owner = '';
  let key = '';

  beforeAll(async () => {
    hub = await hubOn(kind);
    owner = await setUpOwner(hub, `Ada ${HOSTILE}`);
  }, 120_000);
  afterAll(async () => hub?.close());

  it('says what to do when there are no projects, and creates one from the form', async () => {
    const empty = await text(page(hub, '/projects', owner));
    expect(empty).toContain('No projects yet: create one, then install a configuration with <code>hub deploy</code>');
    expect(empty).toMatch(/<a href="\/projects" aria-current="page">Projects<\/a>/);
    const created = await form(hub, '/projects', { slug: 'web', name: `Web ${HOSTILE}` }, { cookie: owner });
    expect(created.status).toBe(303);
    expect(created.headers.get('location')).toBe('/projects/web');
    const list = await text(page(hub, '/projects', owner));
    expect(list).toContain(`Web ${ESCAPED}`);
    expect(unescaped(list)).toBe(false);
    expect(list).toContain('none yet');
    const fresh = await text(page(hub, '/projects/web', owner));
    expect(fresh).toContain('install one with <code>hub deploy --project');
  });

  it('re-renders the form with its values for a taken or malformed slug', async () => {
    const taken = await form(hub, '/projects', { slug: 'web', name: 'Another "web"' }, { cookie: owner });
    expect(taken.status).toBe(409);
    const html = await taken.text();
    expect(html).toContain('already has a project with the slug web');
    expect(html).toContain('value="web"');
    expect(html).toContain('value="Another &quot;web&quot;"');
    const malformed = await form(hub, '/projects', { slug: 'Web App', name: 'x' }, { cookie: owner });
    expect(malformed.status).toBe(422);
    expect(await malformed.text()).toContain('value="Web App"');
    const [row] = await hub.sql`select count(*)::int as n from projects`;
    expect(row?.n).toBe(1);
  });

  it('shows a configuration installed through the API: its version, key, maker and escaped YAML', async () => {
    key = await dashboardKey(hub, owner, `Deploys ${HOSTILE}`, SCOPES);
    const installed = await install(hub, key, 'web');
    expect(installed.status).toBe(201);
    expect(installed.body.version).toBe(1);
    const list = await text(page(hub, '/projects', owner));
    expect(list).toContain('version 1');
    const project = await text(page(hub, '/projects/web', owner));
    expect(project).toContain('href="/projects/web/revisions/1"');
    expect(project).toContain(`API key Deploys ${ESCAPED}`);
    expect(project).toContain(key.slice(0, 15));
    expect(project).not.toContain(key);
    expect(project).toContain(`made by Ada ${ESCAPED}`);
    expect(unescaped(project)).toBe(false);
    const revision = await page(hub, '/projects/web/revisions/1', owner);
    expect(revision.status).toBe(200);
    const html = await revision.text();
    expect(html).toContain(`# ${ESCAPED}`);
    expect(unescaped(html)).toBe(false);
    expect(html).toContain('testing.md');
    expect(html).toContain('Run the whole suite.');
    expect((await page(hub, '/projects/web/revisions/2', owner)).status).toBe(404);
    expect((await page(hub, '/projects/web/revisions/x', owner)).status).toBe(404);
    expect((await page(hub, '/projects/nope', owner)).status).toBe(404);
  });

  it('paginates the history 50 a page, newest first', async () => {
    const [project] = await hub.sql`select id from projects where slug = 'web'`;
    const id = project?.id as string;
    await hub.sql`
      insert into configuration_revisions (project_id, version, shape, yaml, partials, files, model, active, api_key_id, created_at)
      select project_id, v, shape, yaml, partials, files, model, false, api_key_id, created_at + v * interval '1 second'
      from configuration_revisions, generate_series(2, 55) as v where project_id = ${id} and version = 1`;
    await hub.sql`update configuration_revisions set active = false where project_id = ${id} and active`;
    await hub.sql`update configuration_revisions set active = true where project_id = ${id} and version = 55`;
    await hub.sql`update projects set last_version = 55 where id = ${id}`;
    const first = await text(page(hub, '/projects/web', owner));
    const versions = (html: string) =>
      [...html.matchAll(/<td data-label="Version"><a href="\/projects\/web\/revisions\/(\d+)"/g)].map((match) =>
        Number(match[1]),
      );
    expect(versions(first)).toEqual(Array.from({ length: 50 }, (_, i) => 55 - i));
    expect(first).toContain('href="/projects/web?page=2"');
    const second = await text(page(hub, '/projects/web?page=2', owner));
    expect(versions(second)).toEqual([5, 4, 3, 2, 1]);
    expect(second).not.toContain('?page=3');
    expect(second).toContain('href="/projects/web"');
  });

  it('deactivates (gone from the API for keys) and reactivates after a confirmation page', async () => {
    const slugs = async () =>
      ((await call(hub, 'GET', '/api/v1/projects', { token: key })).body.projects as { slug: string }[]).map(
        (p) => p.slug,
      );
    expect(await slugs()).toEqual(['web']);
    const confirm = await text(page(hub, '/projects/web/deactivate', owner));
    expect(confirm).toContain('action="/projects/web/deactivate"');
    const done = await form(hub, '/projects/web/deactivate', {}, { cookie: owner });
    expect(done.status).toBe(303);
    expect(await slugs()).toEqual([]);
    const refused = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: key,
      body: { projectSlug: 'web', yaml, partials: configurationPartials },
    });
    expect(refused.status).toBe(404);
    expect(await text(page(hub, '/projects', owner))).toContain('deactivated');
    expect((await page(hub, '/projects/web/reactivate', owner)).status).toBe(200);
    expect((await form(hub, '/projects/web/reactivate', {}, { cookie: owner })).status).toBe(303);
    expect(await slugs()).toEqual(['web']);
  });

  it('lets a member read projects, and refuses their POSTs with 403', async () => {
    const [org] = await hub.sql`select id from organizations where slug = 'acme'`;
    const [account] =
      await hub.sql`insert into accounts (email, name, password_hash) values ('mia@example.com', 'Mia', ${await hashPassword(PASSWORD)}) returning id`;
    await hub.sql`insert into organization_members (organization_id, account_id, role) values (${org?.id as string}, ${account?.id as string}, 'member')`;
    const member = cookieOf(await form(hub, '/sign-in', { email: 'mia@example.com', password: PASSWORD }));
    const list = await page(hub, '/projects', member);
    expect(list.status).toBe(200);
    const html = await list.text();
    expect(html).not.toContain('action="/projects"');
    expect(html).not.toContain('/deactivate');
    expect((await page(hub, '/projects/web/revisions/1', member)).status).toBe(200);
    expect((await form(hub, '/projects', { slug: 'mine', name: 'Mine' }, { cookie: member })).status).toBe(403);
    expect((await form(hub, '/projects/web/deactivate', {}, { cookie: member })).status).toBe(403);
    expect((await page(hub, '/projects/web/deactivate', member)).status).toBe(403);
    const [row] = await hub.sql`select count(*)::int as n from projects where active`;
    expect(row?.n).toBe(1);
  });

  it('refuses a cross-site POST and opens no page without a session', async () => {
    expect(
      (await form(hub, '/projects/web/deactivate', {}, { cookie: owner, origin: 'https://evil.example.com' })).status,
    ).toBe(403);
    expect((await page(hub, '/projects')).headers.get('location')).toBe('/sign-in');
    const [row] = await hub.sql`select active from projects where slug = 'web'`;
    expect(row?.active).toBe(true);
  });
});

describe.skipIf(!browsable)('the projects pages in a browser', () => {
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

  it('creates a project with the form, shows its installed configuration, and deactivates it', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const refused: string[] = [];
    tab.on('console', (message) => message.type() === 'error' && refused.push(message.text()));
    await tab.goto(setupLink(hub));
    await tab.fill('#name', 'Ada');
    await tab.fill('#email', 'ada@example.com');
    await tab.fill('#password', PASSWORD);
    await tab.fill('#slug', 'acme');
    await tab.fill('#organization-name', 'Acme');
    await Promise.all([tab.waitForURL(/\/keys$/), tab.click('button[type=submit]')]);
    await Promise.all([tab.waitForURL(/\/projects$/), tab.click('nav.sections a[href="/projects"]')]);
    await shoot(tab, 'projects-empty');
    await tab.fill('#project-slug', 'web-app');
    await tab.fill('#project-name', 'Web app');
    await Promise.all([
      tab.waitForURL(/\/projects\/web-app$/),
      tab.click('form[action="/projects"] button[type=submit]'),
    ]);
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const key = await dashboardKey(hub, cookie, 'CI deploys', SCOPES);
    expect((await install(hub, key, 'web-app')).status).toBe(201);
    await tab.goto(`${hub.url}/projects`);
    await shoot(tab, 'projects');
    await tab.goto(`${hub.url}/projects/web-app`);
    await shoot(tab, 'project');
    await Promise.all([tab.waitForURL(/\/revisions\/1$/), tab.click('td a[href$="/revisions/1"]')]);
    expect(await tab.textContent('pre.source code')).toBe(yaml);
    await shoot(tab, 'revision');
    await tab.goto(`${hub.url}/projects/web-app`);
    await Promise.all([tab.waitForURL(/\/deactivate$/), tab.click('a[href$="/deactivate"]')]);
    await shoot(tab, 'project-deactivate');
    await Promise.all([tab.waitForURL(/\/projects$/), tab.click('form[action$="/deactivate"] button[type=submit]')]);
    expect(await tab.textContent('td[data-label="Status"]')).toBe('deactivated');
    expect(refused).toEqual([]);
    await context.close();
  }, 90_000);
});
