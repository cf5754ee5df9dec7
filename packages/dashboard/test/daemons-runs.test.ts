// The daemons and runs pages against real hubs on both databases: daemons enrolled through the
// API, online or offline with their runtimes, retired by an owner (and then refused); a run
// dispatched through the API listed, paged and shown with its execution; then in Chromium.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browsable, launchBrowser, shoot } from './support/browser.js';
import { call, enrollDaemon } from '../../server/test/support/client.js';
import { TestDaemon } from '../../server/test/support/daemon.js';
import { databases, hubOn } from '../../server/test/support/hub.js';
import { arrange, CONFIGURATION, form, page, type Hub } from './support/hub-session.js';

const HOSTILE = '<script>alert(1)</script>';
const RUNTIMES = [
  { provider: 'claude', models: [HOSTILE, 'opus'] },
  { provider: 'codex', modes: ['edit'] },
];

const text = async (response: Response) => {
  expect(response.status).toBe(200);
  return response.text();
};
/** The table row that names `name`, as HTML. */
const rowOf = (html: string, name: string) => html.split('<tr').find((row) => row.includes(name)) ?? '';

/** An online daemon `dev-box`, the configuration installed, and one run dispatched to it that failed with a message. */
async function dispatchedRun(hub: Hub, key: string): Promise<{ devBox: TestDaemon; runId: string }> {
  const devBox = (await TestDaemon.enroll(hub, key, 'dev-box', RUNTIMES)).keepAlive(300);
  expect((await devBox.heartbeat()).status).toBe(200);
  const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
    token: key,
    body: { projectSlug: 'app', yaml: CONFIGURATION },
  });
  expect(installed.status, installed.text).toBe(201);
  const body = {
    projectSlug: 'app',
    trigger: 'fix-tests',
    actor: '<script>alert(4)</script>',
    deliveryKey: `d-${Date.now()}`,
    input: 'now',
  };
  const dispatched = await call(hub, 'POST', '/api/v1/manual-runs', { token: key, body });
  expect(dispatched.status, dispatched.text).toBe(200);
  const runId = dispatched.body.triggerRunId as string;
  for (let attempt = 0; attempt < 5; attempt++) {
    const next = await devBox.next(5);
    if (next.status !== 200) continue;
    await devBox.report(next.body.assignment.executionId, 'failed', { exitCode: 3, message: `agent said ${HOSTILE}` });
    break;
  }
  return { devBox, runId };
}

describe.each(databases)('daemons and runs on the %s database', (kind) => {
  let hub: Hub;
  let owner = '';
  let member = '';
  let key = '';
  let devBox: TestDaemon | undefined;

  beforeAll(async () => {
    hub = await hubOn(kind);
    ({ owner, member, key } = await arrange(hub));
  }, 120_000);
  afterAll(async () => {
    devBox?.stop();
    await hub?.close();
  });

  it('says what to do while there are no daemons and no runs', async () => {
    expect(await text(await page(hub, '/daemons', owner))).toContain(
      'No daemons yet: run <code>hub connect</code> on a machine to enroll one',
    );
    expect(await text(await page(hub, '/runs', member))).toContain(
      '<code>hub run &lt;trigger> --project &lt;slug> --follow</code>',
    );
    expect((await page(hub, '/runs')).headers.get('location')).toBe('/sign-in');
    expect((await page(hub, '/daemons')).headers.get('location')).toBe('/sign-in');
  });

  it('lists daemons online or offline, with runtimes, escaped', async () => {
    const seen = await TestDaemon.enroll(hub, key, 'seen-box', RUNTIMES);
    expect((await seen.heartbeat()).status).toBe(200);
    expect((await enrollDaemon(hub, key, 'quiet-box', [{ provider: 'codex' }])).status).toBe(201);
    const html = await text(await page(hub, '/daemons', member));
    expect(rowOf(html, 'seen-box')).toContain('status online');
    expect(rowOf(html, 'seen-box')).toContain('models: &lt;script>alert(1)&lt;/script>, opus');
    expect(rowOf(html, 'seen-box')).toContain('modes: edit');
    expect(rowOf(html, 'quiet-box')).toContain('status offline');
    expect(rowOf(html, 'quiet-box')).toContain('never');
    expect(html).not.toContain(HOSTILE);
    expect(html).not.toContain('/retire');
  });

  it('lets an owner retire a daemon, which is then refused, and its name enrolled again; a member may not', async () => {
    const daemon = await TestDaemon.enroll(hub, key, 'old-box');
    const retire = `/daemons/${daemon.id}/retire`;
    expect((await page(hub, retire, member)).status).toBe(403);
    expect((await form(hub, retire, {}, { cookie: member })).status).toBe(403);
    expect((await form(hub, retire, {}, { cookie: owner, origin: 'https://evil.example.com' })).status).toBe(403);
    expect((await daemon.heartbeat()).status).toBe(200);
    expect(await text(await page(hub, retire, owner))).toContain(`action="${retire}"`);
    const done = await form(hub, retire, {}, { cookie: owner });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/daemons');
    expect((await daemon.heartbeat()).status).toBe(401);
    expect((await form(hub, retire, {}, { cookie: owner })).status).toBe(404);
    expect(await text(await page(hub, '/daemons', owner))).not.toContain('old-box');
    expect(rowOf(await text(await page(hub, '/daemons?retired=1', owner)), 'old-box')).toContain('status retired');
    expect((await enrollDaemon(hub, key, 'old-box', [])).status).toBe(201);
  });

  it('lists a run dispatched through the API and shows its execution, escaped', async () => {
    const arranged = await dispatchedRun(hub, key);
    devBox = arranged.devBox;
    const list = await text(await page(hub, '/runs', member));
    const row = rowOf(list, `/runs/${arranged.runId}`);
    expect(row).toContain('fix-tests');
    expect(row).toContain('<code>app</code>');
    expect(row).toContain('&lt;script>alert(4)&lt;/script>');
    expect(row).toContain('status failed');
    expect(list).not.toContain('<script>alert(4)');
    const run = await text(await page(hub, `/runs/${arranged.runId}`, member));
    const execution = rowOf(run, 'data-label="Step"');
    expect(execution).toContain('<code>fix</code>');
    expect(execution).toContain('<code>dev-box</code>');
    expect(execution).toContain('status failed');
    expect(execution).toContain('>3<');
    expect(execution).toContain('agent said &lt;script>alert(1)&lt;/script>');
    expect(run).not.toContain(HOSTILE);
    const api = await call(hub, 'GET', `/api/v1/runs/${arranged.runId}`, { token: key });
    expect(api.body.executions).toHaveLength(1);
    expect(run).toContain(`<code>${api.body.deliveryKey}</code>`);
    expect(execution).toContain(`datetime="${api.body.executions[0].finishedAt}"`);
    expect((await page(hub, '/runs/00000000-0000-4000-8000-000000000000', owner)).status).toBe(404);
    expect((await page(hub, '/runs/not-a-run', owner)).status).toBe(404);
  });

  it('pages the runs 50 at a time, newest first, with an "Older runs" link', async () => {
    const [run] = await hub.sql`select id from trigger_runs order by created_at limit 1`;
    await hub.sql`
      insert into trigger_runs (organization_id, project_id, delivery_key, request_digest, trigger_name, configuration_revision_id,
        trigger_id, actor, inputs, plan, max_runtime_ms, status, api_key_id, created_at, finished_at)
      select organization_id, project_id, 'older-' || g, request_digest, 'older-' || g, configuration_revision_id,
        trigger_id, actor, inputs, plan, max_runtime_ms, 'succeeded', api_key_id, created_at - g * interval '1 minute', created_at
      from trigger_runs, generate_series(1, 55) g where id = ${run?.id as string}`;
    const first = await text(await page(hub, '/runs', owner));
    expect(first.match(/href="\/runs\/[0-9a-f-]{36}"/g)).toHaveLength(50);
    expect(first.indexOf('>fix-tests<')).toBeLessThan(first.indexOf('>older-1<'));
    const older = /href="(\/runs\?before=[^"]+)">Older runs</.exec(first)?.[1] as string;
    expect(older).toBeDefined();
    const second = await text(await page(hub, older, owner));
    expect(second.match(/href="\/runs\/[0-9a-f-]{36}"/g)).toHaveLength(6);
    expect(second).toContain('>older-55<');
    expect(second).not.toContain('Older runs');
  });
});

describe.skipIf(!browsable)('daemons and runs in a browser', () => {
  let hub: Hub;
  let browser: Browser;
  let devBox: TestDaemon | undefined;

  beforeAll(async () => {
    hub = await hubOn('external');
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    devBox?.stop();
    await browser?.close();
    await hub?.close();
  });

  it('shows the daemons and runs, retires a daemon and opens a run, with forms and links alone', async () => {
    const { owner, key } = await arrange(hub);
    const context = await browser.newContext();
    const [name, value] = owner.split('=') as [string, string];
    await context.addCookies([{ name, value, url: hub.url }]);
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (message) => message.type() === 'error' && refused.push(message.text()));
    await page.goto(`${hub.url}/daemons`);
    await shoot(page, 'daemons-empty');
    await page.goto(`${hub.url}/runs`);
    await shoot(page, 'runs-empty');
    const arranged = await dispatchedRun(hub, key);
    devBox = arranged.devBox;
    await enrollDaemon(hub, key, 'spare-box', [{ provider: 'codex', models: ['gpt-5'] }]);
    await page.goto(`${hub.url}/daemons`);
    await shoot(page, 'daemons');
    await Promise.all([page.waitForURL(/\/retire$/), page.click('a[href$="/retire"]:has-text("spare-box")')]);
    await shoot(page, 'retire-daemon');
    await Promise.all([page.waitForURL(/\/daemons$/), page.click('form[action$="/retire"] button[type=submit]')]);
    expect(await page.content()).not.toContain('spare-box');
    await page.click('a[href="/daemons?retired=1"]');
    await shoot(page, 'daemons-retired');
    await page.click('nav.sections a[href="/runs"]');
    await shoot(page, 'runs');
    await Promise.all([page.waitForURL(/\/runs\/[0-9a-f-]{36}$/), page.click(`a[href="/runs/${arranged.runId}"]`)]);
    expect(await page.textContent('table.executions')).toContain('dev-box');
    await shoot(page, 'run');
    expect(refused).toEqual([]);
    await context.close();
  }, 90_000);
});
