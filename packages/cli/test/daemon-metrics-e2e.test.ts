// `hub daemon run --metrics-port` with a real hub: the daemon's own metrics, which promtool finds
// nothing to report in, move by exactly what its runs did, and a real Prometheus, configured as
// docs/prometheus/prometheus.yml says, scrapes the hub (with its token) and the daemon.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { call, setUp } from '../../server/test/support/client.js';
import { hubOn } from '../../server/test/support/hub.js';
import { eventually } from '../../server/test/support/poll.js';
import { sampleValue, samples, startPrometheus } from '../../server/test/support/prometheus.js';
import { hub as runHub, start, type Running } from './support/cli.js';

const TOKEN = 'metrics-token-for-tests-0123456789';
const docs = fileURLToPath(new URL('../../../docs/prometheus/', import.meta.url));
/** What each agent prints: its bytes are what the daemon sends of each execution. */
const PRINTED = 'agent says héllo\nand a second line\n';
const AGENT = `let prompt = '';
for await (const chunk of process.stdin) prompt += chunk;
process.stdout.write(${JSON.stringify(PRINTED)});
process.exitCode = Number(process.env.HUB_INPUT_EXIT ?? 0);
`;
const configuration = (cwd: string) => `
environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: ${JSON.stringify(cwd)} }
triggers:
  - name: fix
    on: { manual.run: { inputs: { exit: { description: Exit code, required: false, default: "0" } } } }
    max_runtime: 1h
    filters: { from_users: [dev-lead] }
    steps:
      - { id: first, environment: laptop, agent: { provider: claude }, prompt: [ { text: "Fix." } ] }
      - { id: second, environment: laptop, agent: { provider: claude }, prompt: [ { text: "Check." } ] }
`;

describe("the daemon's metrics (hub daemon run --metrics-port)", () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let dir: string;
  let daemon: Running | undefined;
  let metricsUrl: string;

  const scrape = async () => {
    const answer = await fetch(metricsUrl);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return answer.text();
  };
  const dispatch = async (input: string) => {
    const answer = await call(hub, 'POST', '/api/v1/manual-runs', {
      token: ctx.key,
      body: {
        projectSlug: ctx.project,
        trigger: 'fix',
        actor: 'dev-lead',
        deliveryKey: `m-${Date.now()}-${input}`,
        input,
      },
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.triggerRunId as string;
  };
  const ended = (triggerRunId: string) =>
    eventually(
      async () => (await call(hub, 'GET', `/api/v1/runs/${triggerRunId}`, { token: ctx.key })).body,
      (run) => run.status !== 'running',
      `run ${triggerRunId} ended; daemon stderr:\n${daemon?.output().stderr}`,
    );

  beforeAll(async () => {
    hub = await hubOn('external', { HUB_METRICS_TOKEN: TOKEN });
    ctx = await setUp(hub);
    dir = mkdtempSync(join(tmpdir(), 'hub-daemon-metrics-'));
    mkdirSync(join(dir, 'work'));
    writeFileSync(join(dir, 'agent.mjs'), AGENT);
    const config = join(dir, 'daemon.yml');
    writeFileSync(
      config,
      `providers:\n  claude:\n    command: ${JSON.stringify([process.execPath, join(dir, 'agent.mjs')])}\n`,
    );
    const env = { HUB_CONFIG_DIR: join(dir, 'config') };
    const token = await call(hub, 'POST', '/api/v1/daemons/enrollment-tokens', { token: ctx.key });
    expect(token.status, token.text).toBe(201);
    const enrolled = await runHub(['daemon', 'enroll', hub.url, '--name', 'dev-box', '--config', config], {
      input: `${token.body.token}\n`,
      env,
    });
    expect(enrolled.code, enrolled.stderr).toBe(0);
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: ctx.project, yaml: configuration(join(dir, 'work')) },
    });
    expect(installed.status, installed.text).toBe(201);
    daemon = start(['daemon', 'run', hub.url, '--config', config, '--metrics-port', '0'], { env });
    await daemon.waitFor(/Connected; waiting for assignments\./);
    metricsUrl = /Metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)\./.exec(daemon.output().stderr)?.[1] ?? '';
    expect(metricsUrl).not.toBe('');
  }, 120_000);

  afterAll(async () => {
    if (daemon !== undefined && daemon.child.exitCode === null) {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
    await hub?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('serves them at /metrics only, in the text format, which promtool finds nothing to report in', async () => {
    const text = await scrape();
    for (const name of [
      'hub_daemon_assignments_taken_total',
      'hub_daemon_executions_total',
      'hub_daemon_output_bytes_sent_total',
      'hub_daemon_hub_request_duration_seconds',
      'hub_daemon_process_cpu_seconds_total',
    ])
      expect(text).toContain(`# TYPE ${name} `);
    expect(text).not.toContain('_active_handles_total');
    const checked = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(checked.error, 'promtool (apt-get install prometheus)').toBeUndefined();
    expect(`${checked.stdout}${checked.stderr}`).toBe('');
    expect(checked.status).toBe(0);
    expect((await fetch(metricsUrl.replace(/metrics$/, 'other'))).status).toBe(404);
    expect((await fetch(metricsUrl, { method: 'POST' })).status).toBe(405);
  });

  it('refuses a bad port, a host without a port, and a port in use (exit 2)', async () => {
    const env = { HUB_CONFIG_DIR: join(dir, 'config') };
    const config = join(dir, 'daemon.yml');
    const used = new URL(metricsUrl).port;
    for (const [args, message] of [
      [['--metrics-port', '65536'], '--metrics-port must be a port number (0 to 65535), not "65536".'],
      [['--metrics-host', '0.0.0.0'], '--metrics-host needs --metrics-port.'],
      [['--metrics-port', '0', '--metrics-host', 'box.example'], '--metrics-host must be an IP address'],
      [['--metrics-port', used], `Cannot serve the metrics on 127.0.0.1:${used}: the port is in use.`],
    ] as const) {
      const refused = await runHub(['daemon', 'run', hub.url, '--config', config, ...args], { env });
      expect(refused.stderr).toContain(message);
      expect(refused.code).toBe(2);
    }
  });

  it("moves by exactly its runs' assignments, outcomes, output and status reports", async () => {
    const before = await scrape();
    // Two steps that succeed, then a run whose first step fails (its second never runs).
    await ended(await dispatch('exit=0'));
    const failed = await ended(await dispatch('exit=3'));
    expect(failed.status).toBe('failed');
    // Each execution reports running, then its end: the last answer may still be on its way.
    const after = await eventually(
      scrape,
      (text) =>
        sampleValue(text, 'hub_daemon_hub_request_duration_seconds_count', { kind: 'status' }) -
          sampleValue(before, 'hub_daemon_hub_request_duration_seconds_count', { kind: 'status' }) >=
        6,
      'six status reports answered',
    );
    const moved = (name: string, labels: Record<string, string> = {}) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);
    expect(moved('hub_daemon_assignments_taken_total')).toBe(3);
    expect(moved('hub_daemon_executions_total', { outcome: 'succeeded' })).toBe(2);
    expect(moved('hub_daemon_executions_total', { outcome: 'failed' })).toBe(1);
    expect(moved('hub_daemon_executions_total', { outcome: 'cancelled' })).toBe(0);
    expect(moved('hub_daemon_executions_total', { outcome: 'timed_out' })).toBe(0);
    expect(moved('hub_daemon_output_bytes_sent_total')).toBe(3 * Buffer.byteLength(PRINTED));
    expect(moved('hub_daemon_hub_request_duration_seconds_count', { kind: 'status' })).toBe(6);
    expect(moved('hub_daemon_hub_request_duration_seconds_count', { kind: 'next_assignment' })).toBeGreaterThanOrEqual(
      3,
    );
    expect(moved('hub_daemon_hub_request_duration_seconds_count', { kind: 'output' })).toBeGreaterThanOrEqual(3);
    // Label values are the daemon's own words, whatever the runs carried.
    const allowed = /^(?:succeeded|failed|timed_out|cancelled|heartbeat|next_assignment|status|output|offline)$/;
    for (const [name, labels] of samples(after))
      if (name.startsWith('hub_daemon_') && !/^hub_daemon_(?:process|nodejs)_/.test(name))
        for (const [label, shown] of Object.entries(labels))
          if (label !== 'le') expect(shown, `${name}{${label}}`).toMatch(allowed);
  });

  it('a real Prometheus, configured as docs/prometheus/prometheus.yml, scrapes the hub and the daemon', async () => {
    const config = parse(readFileSync(join(docs, 'prometheus.yml'), 'utf8'));
    config.global.scrape_interval = '1s';
    const [hubJob, daemonJob] = config.scrape_configs;
    hubJob.scheme = 'http';
    hubJob.static_configs = [{ targets: [new URL(hub.url).host] }];
    daemonJob.static_configs = [{ targets: [new URL(metricsUrl).host] }];
    const prometheus = await startPrometheus({
      'prometheus.yml': stringify(config),
      'alerts.yml': readFileSync(join(docs, 'alerts.yml'), 'utf8'),
      [hubJob.authorization.credentials_file]: `${TOKEN}\n`,
    });
    try {
      const targets = await eventually(
        () => prometheus.targets(),
        (found) => found.length === 2 && found.every((target) => target.health === 'up'),
        'both targets up',
      );
      expect(targets.map((target) => target.labels.job).sort()).toEqual(['hub', 'hub-daemon']);
      const up = await prometheus.query('up');
      expect(up.map((sample) => [sample.metric.job, sample.value[1]]).sort()).toEqual([
        ['hub', '1'],
        ['hub-daemon', '1'],
      ]);
      const succeeded = await eventually(
        () => prometheus.query('hub_daemon_executions_total{outcome="succeeded"}'),
        (found) => Number(found[0]?.value[1]) >= 2,
        "the daemon's executions in Prometheus",
      );
      expect(succeeded[0]?.metric.job).toBe('hub-daemon');
      expect((await prometheus.rules()).sort()).toEqual([
        'HubDaemonOffline',
        'HubRunsFailing',
        'HubWebhookDeliveriesFailing',
      ]);
    } finally {
      await prometheus.stop();
    }
  }, 60_000);
});
