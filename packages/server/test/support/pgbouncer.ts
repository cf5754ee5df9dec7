// A PgBouncer in transaction pooling (Debian's package) on a free loopback port, in front of the
// machine's PostgreSQL, for the hubs of pgbouncer.test.ts. As root it runs as the `postgres`
// account (PgBouncer refuses root), so its directory is made reachable by it.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MACHINE_POSTGRES } from './hub.js';
import { freePort } from './prometheus.js';

const BINARY = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((path) => existsSync(path)) ?? 'pgbouncer';

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = connect(port, '127.0.0.1');
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });

export interface Bouncer {
  /** `url` with its host and port replaced by PgBouncer's. */
  through(url: string): string;
  log(): string;
  stop(): Promise<void>;
}

export async function startPgBouncer(): Promise<Bouncer> {
  const target = new URL(MACHINE_POSTGRES);
  const dir = mkdtempSync(join(tmpdir(), 'hub-pgbouncer-'));
  const port = await freePort();
  const file = (name: string) => join(dir, name);
  writeFileSync(file('users.txt'), '"postgres" ""\n');
  writeFileSync(
    file('pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${file('users.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 500',
      'default_pool_size = 20',
      `logfile = ${file('pgbouncer.log')}`,
      `pidfile = ${file('pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    chmodSync(dir, 0o777);
    for (const name of ['users.txt', 'pgbouncer.ini']) chmodSync(file(name), 0o644);
  }
  const command = asRoot ? 'runuser' : BINARY;
  const args = asRoot ? ['-u', 'postgres', '--', BINARY, file('pgbouncer.ini')] : [file('pgbouncer.ini')];
  const child = spawn(command, args, { stdio: 'ignore' });
  for (let tries = 0; !(await accepts(port)); tries++) {
    if (tries > 100 || child.exitCode !== null)
      throw new Error(`pgbouncer did not start (exit ${child.exitCode}):\n${readLog(file('pgbouncer.log'))}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    through(url) {
      const via = new URL(url);
      via.hostname = '127.0.0.1';
      via.port = String(port);
      return via.toString();
    },
    log: () => readLog(file('pgbouncer.log')),
    async stop() {
      const pid = Number(readLog(file('pgbouncer.pid')).trim());
      if (pid > 0) process.kill(pid, 'SIGTERM');
      for (let tries = 0; tries < 100 && (await accepts(port)); tries++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function readLog(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
