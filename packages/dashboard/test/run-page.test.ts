// The run page shows the work: each execution's output (as text, live while it runs, resumed
// without repeats), who started the run, and a Cancel with its confirmation, done as the person.
// Against a real hub, its daemon protocol driven by a test daemon, and in headless Chromium.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browsable, launchBrowser, shoot } from './support/browser.js';
import { call } from '../../server/test/support/client.js';
import { manualConfiguration } from '../../server/test/support/cli-login.js';
import { TestDaemon } from '../../server/test/support/daemon.js';
import { hubOn } from '../../server/test/support/hub.js';
import { openStream, type SseEvent } from '../../server/test/support/sse.js';
import { arrange, form, page, type Hub } from './support/hub-session.js';

const HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>';
const COLOURED = '\u001b[31mred\u001b[0m and \u001b]0;title\u0007plain\n';
const outputs = (events: SseEvent[]) =>
  events.filter((event) => event.event === 'output').map((event) => JSON.parse(event.data).text as string);

describe('the run page', () => {
  let hub: Hub;
  let member = '';
  let key = '';
  let daemon: TestDaemon;
  let browser: Browser | undefined;
  let seq = 0;

  beforeAll(async () => {
    hub = await hubOn('external', { HUB_STREAM_RECHECK_MS: '200' });
    ({ member, key } = await arrange(hub));
    daemon = (await TestDaemon.enroll(hub, key, 'dev-box')).keepAlive(300);
    expect((await daemon.heartbeat()).status).toBe(200);
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: key,
      body: { projectSlug: 'app', yaml: manualConfiguration('dev-box') },
    });
    expect(installed.status, installed.text).toBe(201);
    if (browsable) browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    daemon?.stop();
    await hub?.close();
  });

  /** A run of fix-tests that the daemon has started; its execution's id. */
  async function started(deliveryKey: string): Promise<{ runId: string; executionId: string }> {
    const answer = await call(hub, 'POST', '/api/v1/manual-runs', {
      token: key,
      body: { projectSlug: 'app', trigger: 'fix-tests', actor: 'dev-lead', deliveryKey, input: 'the login test' },
    });
    expect(answer.status, answer.text).toBe(200);
    const runId = answer.body.triggerRunId as string;
    const run = await call(hub, 'GET', `/api/v1/runs/${runId}`, { token: key });
    const executionId = run.body.executions[0].executionId as string;
    for (let attempt = 0; attempt < 10; attempt++) {
      const next = await daemon.next(5);
      if (next.status === 200 && next.body.assignment?.executionId === executionId) break;
    }
    expect((await daemon.report(executionId, 'running')).status).toBe(200);
    seq = 0;
    return { runId, executionId };
  }

  async function print(executionId: string, text: string): Promise<void> {
    const chunks = [{ seq: seq++, stream: 'stdout', at: new Date().toISOString(), text }];
    const sent = await daemon.signed('POST', `/api/v1/daemon/executions/${executionId}/output`, { chunks });
    expect(sent.status, sent.text).toBe(200);
  }

  it('shows the output so far as text, who dispatched the run, and links to the whole output', async () => {
    const { runId, executionId } = await started('page-1');
    await print(executionId, HOSTILE);
    await print(executionId, COLOURED);
    const html = await (await page(hub, `/runs/${runId}`, member)).text();
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('&lt;script>alert(1)&lt;/script>');
    expect(html).toContain('red and plain');
    expect(html).not.toContain('\u001b');
    expect(html).toMatch(/Dispatched by<\/dt><dd>API key ops \(hub_pk_\w{8}…\)/);
    expect(html).toContain(`href="/runs/${runId}/executions/${executionId}/output"`);
    // The whole, as the agent wrote it, as text.
    const whole = await page(hub, `/runs/${runId}/executions/${executionId}/output`, member);
    expect(whole.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await whole.text()).toBe(`${HOSTILE}${COLOURED}`);
    await daemon.report(executionId, 'succeeded', { exitCode: 0 });
  });

  it('streams the output live with the session, resumes after Last-Event-ID without repeats, and refuses without one', async () => {
    const { runId, executionId } = await started('page-2');
    await print(executionId, 'one\n');
    const path = `/runs/${runId}/executions/${executionId}/output`;
    const unsigned = await fetch(`${hub.url}${path}`, { headers: { accept: 'text/event-stream' } });
    expect(unsigned.status).toBe(401);
    const foreign = await fetch(`${hub.url}/runs/${runId}/executions/${runId}/output`, {
      headers: { accept: 'text/event-stream', cookie: member },
    });
    expect(foreign.status).toBe(404);

    const stream = await openStream(hub, path, '', { cookie: member });
    expect(stream.status).toBe(200);
    await print(executionId, 'two\n');
    await stream.waitFor((event) => event.event === 'output' && event.id === '1');
    expect(outputs(stream.events)).toEqual(['one\n', 'two\n']);
    stream.close();
    await print(executionId, 'three\n');
    const resumed = await openStream(hub, path, '', { cookie: member, lastEventId: '1' });
    await daemon.report(executionId, 'succeeded', { exitCode: 0 });
    const end = await resumed.waitFor((event) => event.event === 'end');
    expect(outputs(resumed.events)).toEqual(['three\n']);
    expect(JSON.parse(end.data)).toMatchObject({ status: 'succeeded' });
  });

  it('ends a live stream once its session is over', async () => {
    const { runId, executionId } = await started('page-3');
    const signedIn = await form(hub, '/sign-in', {
      email: 'mia@example.com',
      password: 'correct horse battery staple',
    });
    const session = (signedIn.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const stream = await openStream(hub, `/runs/${runId}/executions/${executionId}/output`, '', { cookie: session });
    expect((await form(hub, '/sign-out', {}, { cookie: session })).status).toBe(303);
    const end = await stream.waitFor((event) => event.event === 'end');
    expect(JSON.parse(end.data)).toEqual({
      executionId,
      reason: 'session_ended',
    });
    await daemon.report(executionId, 'succeeded', { exitCode: 0 });
  });

  it('cancels a running run after a confirmation, as the person, and says so once it has ended', async () => {
    const { runId, executionId } = await started('page-4');
    const confirm = await page(hub, `/runs/${runId}/cancel`, member);
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toContain('Cancel this run?');
    expect(
      (await form(hub, `/runs/${runId}/cancel`, {}, { cookie: member, origin: 'https://evil.example' })).status,
    ).toBe(403);
    const cancelled = await form(hub, `/runs/${runId}/cancel`, {}, { cookie: member });
    expect(cancelled.status).toBe(303);
    expect(cancelled.headers.get('location')).toBe(`/runs/${runId}`);
    const [row] = await hub.sql`
      select r.cancel_requested_at is not null as asked, a.name from trigger_runs r
      join accounts a on a.id = r.cancelled_by_account where r.id = ${runId}`;
    expect(row).toMatchObject({ asked: true, name: 'Mia' });
    const [event] = await hub.sql`
      select e.actor_kind, a.name from audit_events e join accounts a on a.id = e.account_id
      where e.kind = 'run.cancelled' and e.subject->>'runId' = ${runId}`;
    expect(event).toMatchObject({ actor_kind: 'account', name: 'Mia' });
    // The daemon is told on its next poll; its report ends the run.
    const told = await daemon.next(5);
    expect(told.body, told.text).toEqual({ cancel: [executionId] });
    await daemon.report(executionId, 'cancelled');
    const again = await form(hub, `/runs/${runId}/cancel`, {}, { cookie: member });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('The run has already ended');
  });

  it.skipIf(!browsable)('in Chromium, shows output as it is printed, and the run ends on the page', async () => {
    const { runId, executionId } = await started('page-5');
    await print(executionId, 'first line\n');
    const context = await (browser as Browser).newContext();
    await context.addCookies([
      { name: member.split('=')[0] as string, value: member.slice(member.indexOf('=') + 1), url: hub.url },
    ]);
    const tab: Page = await context.newPage();
    const alerts: string[] = [];
    tab.on('dialog', (dialog) => (alerts.push(dialog.message()), void dialog.dismiss()));
    await tab.goto(`${hub.url}/runs/${runId}`);
    const output = tab.locator(`#output-${executionId} pre`);
    await expect.poll(() => output.textContent()).toContain('first line');
    await print(executionId, `${HOSTILE}\n`);
    await print(executionId, COLOURED);
    await expect.poll(() => output.textContent(), { timeout: 15_000 }).toContain('red and plain');
    expect(await output.textContent()).toContain(HOSTILE);
    await shoot(tab, 'run-live');
    await tab.click('text=Cancel run');
    await expect.poll(() => tab.textContent('h1')).toContain('Cancel this run?');
    await shoot(tab, 'run-cancel');
    await tab.click('button:has-text("Cancel run")');
    await daemon.next(5);
    await daemon.report(executionId, 'cancelled');
    await expect.poll(() => tab.textContent('[data-run-status]'), { timeout: 15_000 }).toContain('cancelled');
    await shoot(tab, 'run-cancelled');
    expect(alerts).toEqual([]);
    await context.close();
  });
});
