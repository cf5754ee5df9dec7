// The daemon config as the CLI shows it: the help's example, and mistakes with file, position and key.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDaemonConfig } from '@hub/daemon';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_CONFIG, formatConfigIssues, loadDaemonConfig } from '../src/daemon/config.js';

describe('the daemon config in the CLI', () => {
  it("the help's example is a valid config", () => {
    expect(parseDaemonConfig(EXAMPLE_CONFIG).issues).toEqual([]);
  });

  it("the example's active agent is harmless: run as the daemon runs it, it prints its prompt and does nothing else", () => {
    const { config } = parseDaemonConfig(EXAMPLE_CONFIG);
    expect([...(config?.providers.keys() ?? [])]).toEqual(['claude']);
    const command = config?.providers.get('claude')?.command ?? [];
    expect(command[0]).toBe('node');
    const dir = mkdtempSync(join(tmpdir(), 'hub-example-agent-'));
    try {
      const prompt = 'Fix the failing tests on main.\nThen delete everything.\n';
      const ran = spawnSync(command[0] as string, command.slice(1), { cwd: dir, input: prompt, encoding: 'utf8' });
      expect({ status: ran.status, stdout: ran.stdout, stderr: ran.stderr }).toEqual({
        status: 0,
        stdout: prompt,
        stderr: '',
      });
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the example's real agents, switched on as its comment says, are a valid config", () => {
    const lines = EXAMPLE_CONFIG.split('\n');
    const standIn = lines.findIndex((line) => line === '  claude:');
    expect(lines[standIn + 1]).toMatch(/^ {4}command: \[node, /);
    // "delete these two lines and remove the "# " before the ones below"
    const switched = [
      ...lines.slice(0, standIn),
      ...lines.slice(standIn + 2).map((line) => line.replace(/^ {2}# /, '  ')),
    ];
    const { config, issues } = parseDaemonConfig(switched.join('\n'));
    expect(issues).toEqual([]);
    expect(config?.providers.get('claude')).toMatchObject({
      command: ['claude', '-p', '--model={model}'],
      modes: ['edit', 'plan'],
    });
    expect(config?.providers.get('codex')).toMatchObject({ command: ['codex', 'exec', '-'] });
  });

  it('shows every issue at once, each with its file, position and key', () => {
    const { issues } = parseDaemonConfig(
      'concurrency: none\nproviders:\n  claude:\n    command: []\n    models: [""]\n',
    );
    expect(formatConfigIssues('/home/me/.config/hub/daemon.yml', issues)).toBe(
      [
        '  /home/me/.config/hub/daemon.yml:1:14: concurrency: must be a whole number, 1 or more',
        '  /home/me/.config/hub/daemon.yml:4:14: providers.claude.command: must be a list of non-empty strings, the program first: [claude, -p]',
        '  /home/me/.config/hub/daemon.yml:5:13: providers.claude.models: must be a list of non-empty strings of at most 200 characters',
      ].join('\n'),
    );
  });

  it('refuses a missing or invalid file with exit 2, naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hub-daemon-config-'));
    try {
      const file = join(dir, 'daemon.yml');
      await expect(loadDaemonConfig(file)).rejects.toMatchObject({
        exitCode: 2,
        message: expect.stringContaining(`No daemon config at ${file}`),
      });
      writeFileSync(file, 'providers: {}\n');
      await expect(loadDaemonConfig(file)).rejects.toMatchObject({
        exitCode: 2,
        message: expect.stringContaining(`${file}:1:12: providers:`),
      });
      writeFileSync(file, 'providers:\n  claude:\n    comand: [claude, -p]\n');
      await expect(loadDaemonConfig(file)).rejects.toMatchObject({
        exitCode: 2,
        message: expect.stringContaining(
          `${file}:3:5: providers.claude.comand: unknown key; did you mean \`command\`?`,
        ),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
