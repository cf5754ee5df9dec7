// GET /metrics (DECISIONS.md, Metrics) on a real hub: the guard (loopback only, or the token),
// Prometheus's own checker (`promtool check metrics`) finds nothing, counters move by exactly the
// requests and runs the test made, and no label value comes from what a client sent.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';
import { call, setUp } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { hubOn } from './support/hub.js';
import { eventually } from './support/poll.js';
import { sampleValue as value, samples, startPrometheus } from './support/prometheus.js';
import { fixTestsConfiguration } from './support/documents.js';

const TOKEN = 'metrics-token-for-tests-0123456789';

describe('GET /metrics (external PostgreSQL)', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let guarded: Awaited<ReturnType<typeof hubOn>>;
  let behindProxy: Awaited<ReturnType<typeof hubOn>>;
  let off: Awaited<ReturnType<typeof hubOn>>;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let daemon: TestDaemon;

  const scrape = async () => {
    const answer = await call(hub, 'GET', '/metrics');
    expect(answer.status, answer.text).toBe(200);
    return answer.text;
  };

  beforeAll(async () => {
    [hub, guarded, behindProxy, off] = await Promise.all([
      hubOn('external'),
      hubOn('external', { HUB_METRICS_TOKEN: TOKEN }),
      hubOn('external', { HUB_TRUST_PROXY: 'loopback' }),
      hubOn('external', { HUB_METRICS: 'off', HUB_METRICS_TOKEN: TOKEN }),
    ]);
    ctx = await setUp(hub);
    daemon = (await TestDaemon.enroll(hub, ctx.key, 'dev-box')).keepAlive(300);
    await daemon.heartbeat();
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: ctx.project, yaml: fixTestsConfiguration },
    });
    expect(installed.status, installed.text).toBe(201);
  }, 120_000);
  afterAll(async () => {
    daemon?.stop();
    await Promise.all([hub, guarded, behindProxy, off].map((each) => each?.close()));
  });

  it('answers loopback clients in the text format, which promtool finds nothing to report in', async () => {
    const answer = await call(hub, 'GET', '/metrics');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of [
      'hub_http_requests_total',
      'hub_http_request_duration_seconds',
      'hub_runs_started_total',
      'hub_runs_completed_total',
      'hub_schedule_ticks_total',
      'hub_dispatch_to_assignment_seconds',
      'hub_daemons_online',
      'hub_database_up',
      'hub_process_cpu_seconds_total',
    ])
      expect(answer.text).toContain(`# TYPE ${name} `);
    expect(value(answer.text, 'hub_database_up', {})).toBe(1);
    expect(value(answer.text, 'hub_daemons_online', {})).toBe(1);
    const checked = spawnSync('promtool', ['check', 'metrics'], { input: answer.text, encoding: 'utf8' });
    expect(checked.error, 'promtool (apt-get install prometheus)').toBeUndefined();
    expect(`${checked.stdout}${checked.stderr}`).toBe('');
    expect(checked.status).toBe(0);
  });

  it('with HUB_METRICS_TOKEN, requires it as a bearer; without, refuses a client a trusted proxy names', async () => {
    expect((await call(guarded, 'GET', '/metrics')).status).toBe(401);
    expect((await call(guarded, 'GET', '/metrics', { token: `${TOKEN}x` })).status).toBe(401);
    expect((await call(guarded, 'GET', '/metrics', { token: TOKEN })).status).toBe(200);
    const proxied = await call(behindProxy, 'GET', '/metrics', { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(proxied.status).toBe(403);
    expect(proxied.text).toContain('HUB_METRICS_TOKEN');
    expect((await call(behindProxy, 'GET', '/metrics')).status).toBe(200);
  });

  it('with HUB_METRICS=off, answers GET /metrics as any unknown page: 404, with or without the token', async () => {
    const unknown = await call(off, 'GET', '/metrics-not-a-page');
    expect(unknown.status).toBe(404);
    for (const token of [undefined, TOKEN]) {
      const answer = await call(off, 'GET', '/metrics', token === undefined ? {} : { token });
      expect(answer.status).toBe(404);
      expect(answer.headers.get('content-type')).toBe(unknown.headers.get('content-type'));
      expect(answer.text).not.toContain('# TYPE');
    }
    expect((await call(off, 'GET', '/healthz')).status).toBe(200);
  });

  it.each([
    [undefined, true],
    ['on', true],
    ['off', false],
    ['OFF', false],
  ])('HUB_METRICS=%s: metrics %s', (raw, on) => {
    expect(readConfig(raw === undefined ? {} : { HUB_METRICS: raw }).metrics).toBe(on);
  });

  it('refuses a HUB_METRICS that is neither on nor off', () => {
    expect(() => readConfig({ HUB_METRICS: 'no' })).toThrow('HUB_METRICS must be on or off, not "no"');
  });

  it('counts exactly the requests and runs made, by operation, status and source', async () => {
    const before = await scrape();
    for (let i = 0; i < 3; i++)
      expect((await call(hub, 'GET', '/api/v1/projects', { token: ctx.key })).status).toBe(200);
    expect((await call(hub, 'GET', '/api/v1/projects', { token: 'hub_pk_nope' })).status).toBe(401);
    const runs: string[] = [];
    for (let i = 0; i < 2; i++) {
      const answer = await call(hub, 'POST', '/api/v1/manual-runs', {
        token: ctx.key,
        body: { projectSlug: ctx.project, trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: randomUUID() },
      });
      expect(answer.status, answer.text).toBe(200);
      runs.push(answer.body.triggerRunId as string);
    }
    // Both runs end: the daemon takes each assignment and reports it succeeded.
    for (let i = 0; i < 2; i++) {
      const next = await daemon.next(5);
      expect(next.status, next.text).toBe(200);
      expect((await daemon.report(next.body.assignment.executionId, 'running')).status).toBeLessThan(300);
      expect((await daemon.report(next.body.assignment.executionId, 'succeeded', { exitCode: 0 })).status).toBeLessThan(
        300,
      );
    }
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string>) =>
      value(after, name, labels) - value(before, name, labels);
    expect(moved('hub_http_requests_total', { operation: 'listProjects', status: '200' })).toBe(3);
    expect(moved('hub_http_requests_total', { operation: 'listProjects', status: '401' })).toBe(1);
    expect(moved('hub_http_request_duration_seconds_count', { operation: 'listProjects' })).toBe(4);
    expect(moved('hub_runs_started_total', { source: 'manual' })).toBe(2);
    expect(moved('hub_runs_completed_total', { status: 'succeeded' })).toBe(2);
    // Each run's one execution was taken once: two times, each counted in every bucket that holds it.
    expect(moved('hub_dispatch_to_assignment_seconds_count', {})).toBe(2);
    expect(moved('hub_dispatch_to_assignment_seconds_bucket', { le: '+Inf' })).toBe(2);
    expect(moved('hub_dispatch_to_assignment_seconds_sum', {})).toBeGreaterThan(0);
    // The scrape before this one was counted when its answer ended.
    expect(moved('hub_http_requests_total', { operation: 'metrics', status: '200' })).toBe(1);
  });

  it('counts every answer across its batches: 1,100 (over two batches of 512) are 1,100 in the counter and the histogram', async () => {
    const before = await scrape();
    for (let sent = 0; sent < 1_100; sent += 50)
      await Promise.all(
        Array.from({ length: 50 }, async () =>
          expect((await call(hub, 'GET', '/api/v1/projects', { token: ctx.key })).status).toBe(200),
        ),
      );
    const after = await scrape();
    const moved = (name: string) =>
      value(after, name, { operation: 'listProjects', status: '200' }) -
      value(before, name, { operation: 'listProjects', status: '200' });
    expect(moved('hub_http_requests_total')).toBe(1_100);
    const timed = (text: string) =>
      value(text, 'hub_http_request_duration_seconds_count', { operation: 'listProjects' });
    expect(timed(after) - timed(before)).toBe(1_100);
  });

  it('times an assignment once, when first taken: a redelivery of it is not counted again', async () => {
    const before = await scrape();
    const dispatched = await call(hub, 'POST', '/api/v1/manual-runs', {
      token: ctx.key,
      body: { projectSlug: ctx.project, trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: randomUUID() },
    });
    expect(dispatched.status, dispatched.text).toBe(200);
    const first = await daemon.next(5);
    expect(first.status, first.text).toBe(200);
    const { executionId } = first.body.assignment as { executionId: string };
    // Offered long ago as far as the hub can tell: the next poll offers it again (offers = 2).
    await hub.sql`update executions set offered_at = offered_at - interval '1 hour' where id = ${executionId}`;
    const again = await daemon.next(5);
    expect(again.status, again.text).toBe(200);
    expect(again.body.assignment.executionId).toBe(executionId);
    const [row] = await hub.sql<{ offers: number }[]>`select offers from executions where id = ${executionId}`;
    expect(row?.offers).toBe(2);
    expect((await daemon.report(executionId, 'succeeded', { exitCode: 0 })).status).toBeLessThan(300);
    const after = await scrape();
    const moved = value(after, 'hub_dispatch_to_assignment_seconds_count', {});
    expect(moved - value(before, 'hub_dispatch_to_assignment_seconds_count', {})).toBe(1);
  });

  it('a real Prometheus scrapes it: the hub is up, and its runs are there', async () => {
    const prometheus = await startPrometheus({
      'prometheus.yml': `global: { scrape_interval: 1s }\nscrape_configs:\n  - job_name: hub\n    static_configs: [{ targets: ["${new URL(hub.url).host}"] }]\n`,
    });
    try {
      const up = await eventually(
        () => prometheus.query('up{job="hub"}'),
        (found) => found[0]?.value[1] === '1',
        'the hub scraped',
      );
      expect(up).toHaveLength(1);
      const started = await eventually(
        () => prometheus.query('hub_runs_started_total{job="hub",source="manual"}'),
        (found) => Number(found[0]?.value[1]) >= 2,
        'the runs in Prometheus',
      );
      expect(started[0]?.metric).toMatchObject({ source: 'manual' });
    } finally {
      await prometheus.stop();
    }
  }, 60_000);

  it('takes no label value from what a client sent', async () => {
    const hostile = [
      '/api/v1/projects/<script>alert(1)</script>',
      '/api/v1/%22%7D%20evil',
      '/x%0Aevil_total 1',
      '/ünïcode',
    ];
    for (const path of hostile)
      await call(hub, 'GET', path, { token: ctx.key, headers: { 'x-request-id': 'evil"label' } });
    await call(hub, 'POST', '/api/v1/manual-runs', {
      token: ctx.key,
      body: { projectSlug: 'evil"project', trigger: 'evil{trigger}', actor: 'evil\nactor', deliveryKey: 'evil' },
    });
    const text = await scrape();
    const allowed: Record<string, RegExp> = {
      operation: /^(?:[a-z][A-Za-z]+|page|unmatched|metrics)$/,
      status: /^(?:\d{3}|succeeded|failed|cancelled|timed_out|other)$/,
      source: /^(?:manual|schedule|github|other)$/,
      result: /^(?:started|failed|skipped)$/,
      le: /^(?:[\d.e+-]+|\+Inf)$/,
      version: /^v?[\d.]+$/,
      major: /^\d+$/,
      minor: /^\d+$/,
      patch: /^\d+$/,
      kind: /^[a-z]+$/,
      space: /^[a-z_]+$/,
      // Node's own: the kinds of resources and handles its event loop holds (hub_nodejs_active_*).
      type: /^[A-Za-z]+$/,
    };
    for (const [name, labels] of samples(text))
      for (const [label, shown] of Object.entries(labels)) {
        expect(allowed[label], `${name}: label ${label}`).toBeDefined();
        expect(shown, `${name}{${label}}`).toMatch(allowed[label] as RegExp);
      }
    expect(text).not.toContain('evil');
  });
});
