// README's "Monitoring" and docs/prometheus/ (issue 28): Prometheus's own tool accepts the scrape
// config and the alert rules and finds each alert firing on its test series, the README shows both
// files as they are, and every metric the hub and the daemon define is in the README's list.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DaemonMetrics } from '@hub/daemon';
import { describe, expect, it } from 'vitest';
import { collectProcessMetrics, registry } from '../../server/src/metrics/registry.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const docs = join(root, 'docs/prometheus');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const monitoring = /^## Monitoring\n[\s\S]*?(?=^## )/m.exec(readme)?.[0] ?? '';

function promtool(args: string[], cwd = docs) {
  const result = spawnSync('promtool', args, { cwd, encoding: 'utf8' });
  expect(result.error, 'promtool (apt-get install prometheus)').toBeUndefined();
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('monitoring docs', () => {
  it('README shows docs/prometheus/prometheus.yml and alerts.yml as they are', () => {
    expect(monitoring).not.toBe('');
    for (const file of ['prometheus.yml', 'alerts.yml'])
      expect(monitoring).toContain(`\`\`\`yaml\n${readFileSync(join(docs, file), 'utf8')}\`\`\``);
  });

  it('promtool checks the alert rules, and its rule tests find each alert firing when it should', () => {
    const checked = promtool(['check', 'rules', 'alerts.yml']);
    expect(checked.output).toContain('SUCCESS: 3 rules found');
    expect(checked.status).toBe(0);
    const tested = promtool(['test', 'rules', 'alerts.test.yml']);
    expect(tested.output).toContain('SUCCESS');
    expect(tested.status, tested.output).toBe(0);
  });

  it('promtool checks the scrape config, with the token file it names beside it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hub-prometheus-config-'));
    try {
      for (const file of ['prometheus.yml', 'alerts.yml']) copyFileSync(join(docs, file), join(dir, file));
      writeFileSync(join(dir, 'hub-metrics-token'), 'metrics-token-for-tests-0123456789\n', { mode: 0o600 });
      const checked = promtool(['check', 'config', 'prometheus.yml'], dir);
      expect(checked.output).toContain('SUCCESS: prometheus.yml is valid prometheus config file syntax');
      expect(checked.output).toContain('SUCCESS: 3 rules found');
      expect(checked.status, checked.output).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists every metric of the hub and of a daemon', async () => {
    collectProcessMetrics();
    const listed = (name: string) =>
      monitoring.includes(`\`${name}\``) ||
      [/^(hub_process_)/, /^(hub_nodejs_)/, /^(hub_daemon_process_)/, /^(hub_daemon_nodejs_)/].some(
        (family) => family.test(name) && monitoring.includes(`\`${family.exec(name)?.[1]}*\``),
      );
    const names = [
      ...(await registry.getMetricsAsJSON()).map((metric) => metric.name),
      ...(await new DaemonMetrics().registry.getMetricsAsJSON()).map((metric) => metric.name),
    ];
    expect(names).toContain('hub_dispatch_to_assignment_seconds');
    expect(names).toContain('hub_daemon_hub_request_duration_seconds');
    expect(names.filter((name) => !listed(name))).toEqual([]);
  });
});
