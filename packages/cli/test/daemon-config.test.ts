// The daemon config as the CLI shows it: the help's example, and mistakes with file, position and key.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDaemonConfig } from '@hub/daemon';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_CONFIG, formatConfigIssues, loadDaemonConfig } from '../src/daemon/config.js';

describe('the daemon config in the CLI', () => {
  it("the help's example is a valid config", () => {
    expect(parseDaemonConfig(EXAMPLE_CONFIG).issues).toEqual([]);
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
