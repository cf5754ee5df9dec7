// What the dashboard shows of schedules: each entry's next three fire times on the project page
// (its zone and UTC), the runs list's source column and filter, and a scheduled run's page with
// its tick, and why it did not start when its daemon was offline. A real hub; its scheduler's
// clock is the test hook HUB_TEST_CLOCK_FILE.
import { nextFireTimes } from '../../compiler/src/index.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../server/test/support/client.js';
import { TestDaemon } from '../../server/test/support/daemon.js';
import { hubOn } from '../../server/test/support/hub.js';
import { eventually } from '../../server/test/support/poll.js';
import { browsable, launchBrowser, shoot } from './support/browser.js';
import { arrange, page, type Hub } from './support/hub-session.js';

const CONFIGURATION = `
environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: ~/src/app }
  - { name: night, kind: daemon, daemon: night-box, cwd: /srv/app }
triggers:
  - name: fix-tests
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [dev-lead] }
    steps:
      - { id: fix, environment: laptop, agent: { provider: claude }, prompt: [ { text: "Fix {{ prompt }}" } ] }
  - name: nightly
    on:
      schedule:
        - { cron: "30 2 * * 1-5", timezone: Europe/Berlin, input: "Sweep the flaky tests" }
        - { cron: "0 12 1 * *" }
    max_runtime: 30m
    steps:
      - { id: sweep, environment: night, agent: { provider: claude }, prompt: [ { text: "{{ prompt }} ({{ event.scheduled_at }})" } ] }
`;

describe('schedules in the dashboard', () => {
  let hub: Hub;
  let owner = '';
  let key = '';
  let devBox: TestDaemon;
  let browser: Browser | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'hub-clock-'));
  const clock = join(dir, 'now');
  let scheduledRun = '';

  beforeAll(async () => {
    writeFileSync(clock, '2030-01-07T00:00:00Z');
    hub = await hubOn('external', { HUB_TEST_CLOCK_FILE: clock });
    ({ owner, key } = await arrange(hub));
    devBox = (await TestDaemon.enroll(hub, key, 'dev-box')).keepAlive(300);
    await devBox.heartbeat();
    // Enrolled, and never heard from again: offline at the tick.
    await TestDaemon.enroll(hub, key, 'night-box');
    await hub.sql`update daemons set last_seen_at = now() - interval '1 hour' where name = 'night-box'`;
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: key,
      body: { projectSlug: 'app', yaml: CONFIGURATION },
    });
    expect(installed.status, installed.text).toBe(201);
    const manual = await call(hub, 'POST', '/api/v1/manual-runs', {
      token: key,
      body: { projectSlug: 'app', trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: 'by-hand', input: 'it' },
    });
    expect(manual.status, manual.text).toBe(200);
    // 02:30 in Berlin on Monday 2030-01-07 is 01:30 UTC.
    await eventually(
      () => hub.sql`select count(*)::int as n from schedule_entries where next_fire_at is null`,
      ([row]) => row?.n === 0,
      'first ticks computed',
    );
    writeFileSync(clock, '2030-01-07T01:30:00.200Z');
    const [run] = await eventually(
      () => hub.sql`select id from trigger_runs where source = 'schedule'`,
      (rows) => rows.length > 0,
      'the scheduled run',
    );
    scheduledRun = run?.id as string;
    if (browsable) browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    devBox?.stop();
    await hub?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists each schedule entry of a trigger with its next three fire times, in its zone and in UTC', async () => {
    const before = new Date();
    const html = await (await page(hub, '/projects/app', owner)).text();
    const nightly = html.slice(html.indexOf('id="trigger-nightly"'));
    expect(nightly).toContain('<span class="kind">schedule</span>');
    expect(nightly).toContain('its schedule alone');
    expect(nightly).toContain('<code>30 2 * * 1-5</code> <span class="muted">Europe/Berlin</span>');
    expect(nightly).toContain('<code>Sweep the flaky tests</code>');
    // The page's clock is the real one: its times are those of just before the request or after it.
    const table = nightly.slice(nightly.indexOf('<table class="list schedules"'), nightly.indexOf('</table>'));
    const shown = [...table.matchAll(/<time datetime="([^"]+)">/g)].map((match) => match[1]);
    const expected = (after: Date) =>
      [
        ...nextFireTimes('30 2 * * 1-5', 'Europe/Berlin', after, 3),
        ...nextFireTimes('0 12 1 * *', 'UTC', after, 3),
      ].map((at) => at.toISOString());
    expect([expected(before), expected(new Date())]).toContainEqual(shown);
    // Berlin's times are followed by UTC's; a UTC entry's are not repeated.
    expect(table).toMatch(/CET|CEST/);
    expect(table).toMatch(/\(\d\d:\d\d UTC\)/);
    expect(nightly).not.toContain('>Run nightly<');
  });

  it('shows each run’s source in the runs list, and filters by it', async () => {
    const all = await (await page(hub, '/runs', owner)).text();
    expect(all).toContain('<td data-label="Source">schedule</td>');
    expect(all).toContain('<td data-label="Source">manual</td>');
    const scheduled = await (await page(hub, '/runs?source=schedule', owner)).text();
    expect(scheduled).toContain('<td data-label="Source">schedule</td>');
    expect(scheduled).not.toContain('<td data-label="Source">manual</td>');
    expect(scheduled).toContain('<a href="/runs?source=schedule" aria-current="page">schedule</a>');
    const none = await (await page(hub, '/runs?source=github', owner)).text();
    expect(none).toContain('No runs started by GitHub yet.');
  });

  it("shows a scheduled run's tick and schedule, and why it did not start", async () => {
    const html = await (await page(hub, `/runs/${scheduledRun}`, owner)).text();
    expect(html).toContain('schedule: the tick of <time datetime="2030-01-07T01:30:00.000Z">');
    expect(html).toContain('<code>30 2 * * 1-5</code> in Europe/Berlin');
    expect(html).toContain('its schedule');
    expect(html).toMatch(/<p class="notice error" role="status">[^<]*the daemon &quot;night-box&quot; was offline/);
  });

  it.skipIf(!browsable)('in Chromium, at 375 and 1280 px', async () => {
    const context = await (browser as Browser).newContext();
    const [name, value] = [owner.slice(0, owner.indexOf('=')), owner.slice(owner.indexOf('=') + 1)];
    await context.addCookies([{ name, value, url: hub.url }]);
    const tab = await context.newPage();
    await tab.goto(`${hub.url}/projects/app#trigger-nightly`);
    expect(await tab.textContent('table.schedules')).toContain('Europe/Berlin');
    await shoot(tab, 'project-schedules');
    await tab.goto(`${hub.url}/runs`);
    await shoot(tab, 'runs-sources');
    await tab.click('a:has-text("schedule")');
    await expect.poll(() => tab.url()).toMatch(/\/runs\?source=schedule$/);
    await tab.click('table.runs a');
    await expect.poll(() => tab.textContent('main')).toContain('was offline');
    await shoot(tab, 'run-scheduled');
    await context.close();
  });
});
