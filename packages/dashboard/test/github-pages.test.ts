// What the dashboard shows of GitHub on a hub where GitHub is off: the GitHub page says how to turn
// it on; a project's repository, set and cleared by owners with the operator API's rules; and a
// GitHub run's page, with its event and what the hub has told GitHub (github_runs and
// github_messages, written here by hand as the reporter would). A real hub; Chromium for the look.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../server/test/support/client.js';
import { manualConfiguration } from '../../server/test/support/cli-login.js';
import { TestDaemon } from '../../server/test/support/daemon.js';
import { hubOn } from '../../server/test/support/hub.js';
import { browsable, launchBrowser, shoot } from './support/browser.js';
import { arrange, form, page, type Hub } from './support/hub-session.js';

describe('GitHub in the dashboard, with GitHub off', () => {
  let hub: Hub;
  let owner = '';
  let member = '';
  let browser: Browser | undefined;
  const runs: Record<string, string> = {};

  /** A run GitHub started, as the webhook's worker records it, with what the reporter wrote of it. */
  async function githubRun(name: string, event: Record<string, string>, report: string): Promise<void> {
    const [row] = await hub.sql<{ id: string }[]>`
      insert into trigger_runs (organization_id, project_id, delivery_key, request_digest, trigger_name,
        configuration_revision_id, trigger_id, actor, inputs, plan, max_runtime_ms, status, finished_at, source, event)
      select p.organization_id, p.id, ${`github:${name}`}, '\\x00', 'fix-tests', r.id, t.id, 'octocat', '{}', '[]',
        60000, 'succeeded', now(), 'github', ${hub.sql.json(event)}
      from projects p join configuration_revisions r on r.project_id = p.id and r.active
      join configured_triggers t on t.project_id = p.id and t.name = 'fix-tests' where p.slug = 'app'
      returning id`;
    const id = row?.id as string;
    runs[name] = id;
    await hub.sql.unsafe(report.replaceAll('$run', `'${id}'`).replaceAll('$delivery', `'${name}'`));
  }

  beforeAll(async () => {
    hub = await hubOn('external');
    let key = '';
    ({ owner, member, key } = await arrange(hub));
    await TestDaemon.enroll(hub, key, 'dev-box');
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: key,
      body: { projectSlug: 'app', yaml: manualConfiguration('dev-box') },
    });
    expect(installed.status, installed.text).toBe(201);
    const admin = { token: hub.adminToken };
    await call(hub, 'POST', '/api/admin/v1/organizations/acme/projects', {
      ...admin,
      body: { slug: 'web', name: 'Web' },
    });
    await call(hub, 'POST', '/api/admin/v1/organizations', { ...admin, body: { slug: 'globex', name: 'Globex' } });
    await call(hub, 'POST', '/api/admin/v1/organizations/globex/projects', {
      ...admin,
      body: { slug: 'site', name: 'Site' },
    });
    await call(hub, 'PATCH', '/api/admin/v1/organizations/globex/projects/site', {
      ...admin,
      body: { repository: 'globex/site' },
    });
    const issue = {
      repository: 'acme/app',
      number: '12',
      title: 'Flaky login test',
      url: 'https://github.com/acme/app/issues/12',
      kind: 'issue',
      branch: '',
      trigger: 'github.mention',
      deliveryId: 'd-1',
    };
    await githubRun(
      'reported',
      issue,
      `
      insert into github_runs (trigger_run_id, delivery_id, installation_id, repository, number, kind, comment_id, started_reported_at, ended_reported_at)
        values ($run, $delivery, 4242, 'acme/app', 12, 'issue', 987654, now() - interval '2 minutes', now());
      insert into github_messages (delivery_id, kind, installation_id, repository, body, trigger_run_id, sent_at)
        values ($delivery, 'reaction', 4242, 'acme/app', '{"subject":"issue_comment","id":5}', $run, now() - interval '3 minutes')`,
    );
    const pull = {
      ...issue,
      number: '34',
      title: 'Fix the login',
      url: 'https://github.com/acme/app/pull/34',
      kind: 'pull_request',
      branch: 'fix-login',
      trigger: 'github.label',
      label: 'hub:fix',
    };
    await githubRun(
      'delayed',
      pull,
      `
      insert into github_runs (trigger_run_id, delivery_id, installation_id, repository, number, kind, head_sha, comment_id, check_run_id, started_reported_at, attempts, last_error, delayed_until)
        values ($run, $delivery, 4242, 'acme/app', 34, 'pull_request', 'abc', 11, 22, now() - interval '1 minute', 2, 'rate limit', '2099-01-01T12:03:00Z');
      insert into github_messages (delivery_id, kind, installation_id, repository, body, trigger_run_id, attempts, last_error, delayed_until)
        values ($delivery, 'reaction', 4242, 'acme/app', '{"subject":"pull_request","id":34}', $run, 2, 'rate limit', '2099-01-01T12:03:00Z')`,
    );
    await githubRun(
      'failing',
      issue,
      `
      insert into github_runs (trigger_run_id, delivery_id, installation_id, repository, number, kind, attempts, last_error)
        values ($run, $delivery, 4242, 'acme/app', 12, 'issue', 3, 'GitHub answered 502')`,
    );
    if (browsable) browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await hub?.close();
  });

  it('says that GitHub is off and which variables turn it on; lists what is linked and named all the same', async () => {
    await call(hub, 'POST', '/api/admin/v1/organizations/acme/github-installations', {
      token: hub.adminToken,
      body: { installationId: 4242 },
    });
    for (const cookie of [owner, member]) {
      const answer = await page(hub, '/settings/github', cookie);
      expect(answer.status).toBe(200);
      const html = await answer.text();
      expect(html).toContain('GitHub is off on this hub');
      for (const name of [
        'HUB_GITHUB_APP_ID',
        'HUB_GITHUB_APP_SLUG',
        'HUB_GITHUB_PRIVATE_KEY_FILE',
        'HUB_GITHUB_WEBHOOK_SECRET',
        'HUB_GITHUB_CLIENT_ID',
      ])
        expect(html).toContain(`<code>${name}</code>`);
      expect(html).toContain('section “Connect GitHub”');
      expect(html).toMatch(/<code>4242<\/code>[\s\S]*by the operator/);
      expect(html).not.toContain('Install the app on GitHub');
      expect(html).not.toContain('>Unlink<');
      expect(html).toContain('<a href="/settings/github" aria-current="page">GitHub</a>');
    }
    // Linking needs GitHub: its callback says so rather than trying.
    const setup = await page(hub, '/settings/github/setup?code=x&state=y', owner);
    expect(setup.status).toBe(404);
    expect(await setup.text()).toContain('the operator API does');
  });

  it('lets owners name, refuse and clear a project’s repository, with the API’s rules; members only read it', async () => {
    const set = (value: string, cookie = owner, slug = 'app') =>
      form(hub, `/projects/${slug}/repository`, { repository: value }, { cookie });
    const saved = await set(' Acme/App ');
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe('/projects/app#github');
    const shown = await (await page(hub, '/projects/app', member)).text();
    expect(shown).toContain('<code>Acme/App</code>');
    expect(shown).not.toContain('action="/projects/app/repository"');
    expect((await set('acme/other', member)).status).toBe(403);
    const malformed = await set('not a repository');
    expect(malformed.status).toBe(422);
    expect(await malformed.text()).toContain('owner/name');
    const here = await set('ACME/app', owner, 'web');
    expect(here.status).toBe(409);
    expect(await here.text()).toContain('The project app names ACME/app already');
    const elsewhere = await set('GLOBEX/site');
    expect(elsewhere.status).toBe(409);
    const text = await elsewhere.text();
    expect(text).toContain('A project of another organization on this hub names GLOBEX/site');
    expect(text).not.toContain('>site<');
    const settings = await (await page(hub, '/settings/github', member)).text();
    expect(settings).toMatch(/<a href="\/projects\/app">App<\/a>[\s\S]*<code>Acme\/App<\/code>/);
    expect((await set('', owner, 'web')).status).toBe(303);
    const audit = await (await page(hub, '/audit', owner)).text();
    expect(audit).toContain('Repository changed');
  });

  it('shows a GitHub run’s event and its report: reported, delayed until a time, failing and retried', async () => {
    const reported = await (await page(hub, `/runs/${runs.reported}`, member)).text();
    expect(reported).toContain(
      'GitHub: octocat mentioned the app in issue <a href="https://github.com/acme/app/issues/12">#12</a> of <code>acme/app</code>',
    );
    expect(reported).toContain('data-github-report="notice">Reported on GitHub: the run’s comment says how it ended.');
    expect(reported).toContain('href="https://github.com/acme/app/issues/12#issuecomment-987654"');
    expect(reported).toMatch(/Eyes reaction<\/dt><dd>Sent <time/);
    expect(reported).toContain('GitHub (a webhook event)');
    const delayed = await (await page(hub, `/runs/${runs.delayed}`, member)).text();
    expect(delayed).toContain(
      'octocat added the label <code>hub:fix</code> to pull request <a href="https://github.com/acme/app/pull/34">#34</a>',
    );
    expect(delayed).toContain('on the branch <code>fix-login</code>');
    expect(delayed).toContain('Report to GitHub delayed until 2099-01-01 12:03 UTC: rate limit');
    expect(delayed).toMatch(/Check run<\/dt><dd><code>22<\/code>/);
    const failing = await (await page(hub, `/runs/${runs.failing}`, member)).text();
    expect(failing).toContain('Report failed so far: GitHub answered 502, retrying');
    expect(failing).toContain('(3 attempts)');
  });

  it.skipIf(!browsable)('in Chromium, at 375 and 1280 px', async () => {
    const context = await (browser as Browser).newContext();
    const [name, value] = [owner.slice(0, owner.indexOf('=')), owner.slice(owner.indexOf('=') + 1)];
    await context.addCookies([{ name, value, url: hub.url }]);
    const tab = await context.newPage();
    await tab.goto(`${hub.url}/settings/github`);
    await shoot(tab, 'github-off');
    await tab.goto(`${hub.url}/projects/app#github`);
    await tab.fill('#repository', 'acme/app');
    await tab.click('form.repository button');
    await expect.poll(() => tab.url()).toMatch(/\/projects\/app#github$/);
    expect(await tab.textContent('#github')).toContain('acme/app');
    await tab.fill('#repository', 'globex/site');
    await tab.click('form.repository button');
    await expect.poll(() => tab.textContent('#github')).toContain('another organization');
    await shoot(tab, 'project-repository-taken');
    await tab.goto(`${hub.url}/runs/${runs.delayed}`);
    await shoot(tab, 'run-github-delayed');
    await tab.goto(`${hub.url}/runs/${runs.reported}`);
    await shoot(tab, 'run-github-reported');
    await context.close();
  });
});
