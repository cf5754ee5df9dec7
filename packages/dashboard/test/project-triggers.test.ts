// The project page shows what the active configuration defines (triggers, inputs, who may run
// them, steps and whether their daemons are online) and starts runs from a Run form through the
// API's own dispatch, recorded as the person. A real hub, its daemons enrolled through the API.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browsable, launchBrowser, shoot } from './support/browser.js';
import { call } from '../../server/test/support/client.js';
import { TestDaemon } from '../../server/test/support/daemon.js';
import { hubOn } from '../../server/test/support/hub.js';
import { arrange, form, page, type Hub } from './support/hub-session.js';

const CONFIGURATION = `
environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: ~/src/app }
  - { name: night, kind: daemon, daemon: night-box, cwd: /srv/app }
triggers:
  - name: fix-tests
    on:
      manual.run:
        inputs:
          branch: { description: Branch to fix, default: main }
          tone: { enum: [friendly, formal], default: friendly }
          ticket: { required: true }
    max_runtime: 2h
    filters: { from_users: [ada@example.com, dev-lead] }
    steps:
      - { id: fix, environment: laptop, agent: { provider: claude, mode: edit }, prompt: [ { text: "Fix {{ inputs.branch }}: {{ prompt }}" } ] }
  - name: nightly
    on: { manual.run: {} }
    max_runtime: 30m
    filters: { from_users: [ada@example.com] }
    steps:
      - { id: sweep, environment: night, agent: { provider: claude }, prompt: [ { text: "Sweep" } ] }
`;

/** The fields of fix-tests's Run form as a browser sends them. */
const fixTests = (fields: Record<string, string> = {}) => ({
  trigger: 'fix-tests',
  deliveryKey: `dashboard-${crypto.randomUUID()}`,
  'input.branch': 'main',
  'input.tone': 'formal',
  'input.ticket': 'T-1 "quoted"',
  prompt: 'the login test',
  actor: 'ada@example.com',
  ...fields,
});

describe('the project page', () => {
  let hub: Hub;
  let owner = '';
  let member = '';
  let devBox: TestDaemon;
  let browser: Browser | undefined;

  beforeAll(async () => {
    hub = await hubOn('external', { HUB_DAEMON_OFFLINE_AFTER_MS: '3000' });
    let key: string;
    ({ owner, member, key } = await arrange(hub));
    devBox = (await TestDaemon.enroll(hub, key, 'dev-box')).keepAlive(300);
    expect((await devBox.heartbeat()).status).toBe(200);
    // Enrolled, and never heard from again: offline once the window has passed.
    await TestDaemon.enroll(hub, key, 'night-box');
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: key,
      body: { projectSlug: 'app', yaml: CONFIGURATION },
    });
    expect(installed.status, installed.text).toBe(201);
    await hub.sql`update daemons set last_seen_at = now() - interval '1 hour' where name = 'night-box'`;
    if (browsable) browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    devBox?.stop();
    await hub?.close();
  });

  it('lists the triggers with their kinds, inputs, who may run them, and steps with their daemons online or not', async () => {
    const html = await (await page(hub, '/projects/app', member)).text();
    const fix = html.slice(html.indexOf('id="trigger-fix-tests"'), html.indexOf('id="trigger-nightly"'));
    expect(fix).toContain('manual.run');
    expect(fix).toContain('<code>ada@example.com</code>, <code>dev-lead</code>');
    expect(fix).toMatch(
      /<code>tone<\/code> one of <code>friendly<\/code>, <code>formal<\/code>, default <code>friendly<\/code>/,
    );
    expect(fix).toContain('<code>ticket</code> (required)');
    expect(fix).toContain('<code>claude · edit</code>');
    expect(fix).toMatch(/<code>dev-box<\/code><\/a> <span class="status succeeded">online<\/span>/);
    const nightly = html.slice(html.indexOf('id="trigger-nightly"'));
    expect(nightly).toMatch(/<code>night-box<\/code><\/a> <span class="status failed">offline<\/span>/);
    expect(nightly).toContain('<code>/srv/app</code>');
  });

  it('starts a run from the Run form as the person, through the API dispatch, once for a form sent twice', async () => {
    const fields = fixTests();
    const sent = await form(hub, '/projects/app/runs', fields, { cookie: owner });
    expect(sent.status, await sent.clone().text()).toBe(303);
    const runId = /^\/runs\/([0-9a-f-]{36})$/.exec(sent.headers.get('location') ?? '')?.[1] as string;
    const [run] = await hub.sql`
      select r.actor, r.inputs, r.api_key_id, a.name, r.plan -> 0 ->> 'prompt' as prompt from trigger_runs r
      join accounts a on a.id = r.dispatched_by_account where r.id = ${runId}`;
    expect(run).toMatchObject({
      actor: 'ada@example.com',
      inputs: { branch: 'main', tone: 'formal', ticket: 'T-1 "quoted"' },
      api_key_id: null,
      name: 'Ada',
      prompt: 'Fix main: the login test',
    });
    const [event] = await hub.sql`
      select e.actor_kind, a.name from audit_events e join accounts a on a.id = e.account_id
      where e.kind = 'run.dispatched' and e.subject->>'runId' = ${runId}`;
    expect(event).toMatchObject({ actor_kind: 'account', name: 'Ada' });
    // Sent again (a double click, a reload): the same run.
    const again = await form(hub, '/projects/app/runs', fields, { cookie: owner });
    expect(again.headers.get('location')).toBe(`/runs/${runId}`);
    const [{ count }] =
      (await hub.sql`select count(*)::int from trigger_runs where delivery_key = ${fields.deliveryKey}`) as [
        { count: number },
      ];
    expect(count).toBe(1);
    // Its page says who started it, and the audit log links to it.
    expect(await (await page(hub, `/runs/${runId}`, owner)).text()).toContain('Ada (dashboard)');
    const audit = await (await page(hub, '/audit', owner)).text();
    const dispatched = audit.split('<tr').find((row) => row.includes(runId)) ?? '';
    expect(dispatched).toContain('Run dispatched');
    expect(dispatched).toContain('<td data-label="Who"><span>Ada</span></td>');
    expect(dispatched).toContain(`<a href="/runs/${runId}"><code>${runId}</code></a>`);
  });

  it('sends the form back with what held the run back, its values kept', async () => {
    const outsider = await form(hub, '/projects/app/runs', fixTests({ actor: 'mia' }), { cookie: member });
    expect(outsider.status).toBe(403);
    const refused = await outsider.text();
    expect(refused).toContain(
      '&quot;mia&quot; may not run fix-tests: its filters.from_users has ada@example.com, dev-lead.',
    );
    expect(refused).toContain('value="T-1 &quot;quoted&quot;"');
    const offline = await form(
      hub,
      '/projects/app/runs',
      { trigger: 'nightly', deliveryKey: `dashboard-${crypto.randomUUID()}`, actor: 'ada@example.com', prompt: '' },
      { cookie: owner },
    );
    expect(offline.status).toBe(409);
    expect(await offline.text()).toContain('The daemon night-box is offline: start it (hub daemon run) and try again.');
    const missing = await form(hub, '/projects/app/runs', fixTests({ 'input.ticket': '' }), { cookie: owner });
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain('The input &quot;ticket&quot; is required');
    // What the input text cannot carry is refused, not read another way.
    const backslash = await form(hub, '/projects/app/runs', fixTests({ 'input.branch': 'a\\' }), { cookie: owner });
    expect(backslash.status).toBe(422);
    expect(await backslash.text()).toContain('The value of branch cannot end with a backslash');
    const lookalike = await form(hub, '/projects/app/runs', fixTests({ prompt: 'tone=friendly please' }), {
      cookie: owner,
    });
    expect(lookalike.status).toBe(422);
    expect(await lookalike.text()).toContain('which would be read as the input tone');
    const crossSite = await form(hub, '/projects/app/runs', fixTests(), {
      cookie: owner,
      origin: 'https://evil.example',
    });
    expect(crossSite.status).toBe(403);
    expect((await form(hub, '/projects/nope/runs', fixTests(), { cookie: owner })).status).toBe(404);
  });

  it.skipIf(!browsable)(
    'in Chromium: the Run form fills its defaults, picks the person, and lands on the run',
    async () => {
      const context = await (browser as Browser).newContext();
      const [name, value] = [owner.slice(0, owner.indexOf('=')), owner.slice(owner.indexOf('=') + 1)];
      await context.addCookies([{ name, value, url: hub.url }]);
      const tab = await context.newPage();
      await tab.goto(`${hub.url}/projects/app`);
      expect(await tab.inputValue('#run-fix-tests-branch')).toBe('main');
      expect(await tab.inputValue('#run-fix-tests-tone')).toBe('friendly');
      expect(await tab.inputValue('#run-fix-tests-actor')).toBe('ada@example.com');
      await shoot(tab, 'project-triggers');
      await tab.click('button:has-text("Run fix-tests")');
      // Required, and empty: the browser asks for it first.
      expect(tab.url()).toBe(`${hub.url}/projects/app`);
      await tab.fill('#run-fix-tests-ticket', 'T-2');
      await tab.click('button:has-text("Run nightly")');
      await expect.poll(() => tab.textContent('[role=alert]')).toContain('night-box is offline');
      await shoot(tab, 'project-run-refused');
      await tab.fill('#run-fix-tests-ticket', 'T-2');
      await tab.click('button:has-text("Run fix-tests")');
      await expect.poll(() => tab.url()).toMatch(/\/runs\/[0-9a-f-]{36}$/);
      expect(await tab.textContent('main')).toContain('Ada (dashboard)');
      await context.close();
    },
  );
});
