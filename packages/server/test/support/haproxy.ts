// A real HAProxy (Debian's) with deploy/haproxy.cfg as it is, and beside it a `global` section of
// the test's own with an admin socket: what an operator uses to take an instance out of rotation
// before stopping it, and to put it back (README, "Running several hubs").
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './prometheus.js';

export const HAPROXY_CONFIG = fileURLToPath(new URL('../../../../deploy/haproxy.cfg', import.meta.url));
const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((path) => existsSync(path)) ?? 'haproxy';

export interface RunningHaproxy {
  url: string;
  /** One command on the admin socket (`disable server hubs/hub1`, `show stat`); its answer. */
  command(line: string): Promise<string>;
  /** A server's status in the `hubs` backend as HAProxy sees it: UP, DOWN, MAINT, … */
  status(server: string): Promise<string>;
  stop(): Promise<void>;
}

/** HAProxy in front of the instances at `backends` (host:port; deploy/haproxy.cfg names three). */
export async function startHaproxy(backends: [string, string, string]): Promise<RunningHaproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'hub-haproxy-'));
  const socket = join(dir, 'admin.sock');
  writeFileSync(join(dir, 'admin.cfg'), `global\n    stats socket "${socket}" mode 600 level admin\n`);
  const bind = await freePort();
  const child = spawn(HAPROXY, ['-db', '-f', HAPROXY_CONFIG, '-f', join(dir, 'admin.cfg')], {
    env: {
      PATH: process.env.PATH ?? '',
      HUB_BIND: `127.0.0.1:${bind}`,
      HUB_1: backends[0],
      HUB_2: backends[1],
      HUB_3: backends[2],
    },
    stdio: 'ignore',
  });
  const closed = new Promise((resolve) => child.on('close', resolve).on('error', resolve));
  const command = (line: string) =>
    new Promise<string>((resolve, reject) => {
      let answer = '';
      // HAProxy answers one command and closes the connection.
      const connection = createConnection(socket, () => connection.end(`${line}\n`));
      connection.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      connection.on('error', reject);
      connection.on('close', () => resolve(answer));
    });
  return {
    url: `http://127.0.0.1:${bind}`,
    command,
    status: async (server) => {
      const [header = '', ...rows] = (await command('show stat')).split('\n');
      const columns = header.replace(/^# /, '').split(',');
      const row = rows.map((line) => line.split(',')).find((cells) => cells[0] === 'hubs' && cells[1] === server);
      return row?.[columns.indexOf('status')] ?? 'unknown';
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await closed;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
