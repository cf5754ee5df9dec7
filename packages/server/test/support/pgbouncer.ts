// A PgBouncer (Debian's package) on a free loopback port, in front of the machine's PostgreSQL,
// configured by deploy/pgbouncer.ini as it is: the file written here %includes it and then sets
// again only what a test must. As root it runs as the `postgres` account (PgBouncer refuses
// root), so its directory is made reachable by it.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MACHINE_POSTGRES, PGBOUNCER_PASSWORD } from './hub.js';
import { freePort } from './prometheus.js';

const BINARY = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((path) => existsSync(path)) ?? 'pgbouncer';
export const DEPLOY_INI = fileURLToPath(new URL('../../../../deploy/pgbouncer.ini', import.meta.url));

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
  port: number;
  /** `url` with its host and port replaced by PgBouncer's, and the password PgBouncer asks for. */
  through(url: string): string;
  log(): string;
  stop(): Promise<void>;
}

/**
 * The lines after the %include: the deploy file ends in its [pgbouncer] section, and they stay in
 * it. A second [pgbouncer] header would start that section again from PgBouncer's defaults (1.18
 * does so), losing the deploy file's settings; so the database line, in [databases], comes first.
 */
export function testIni(options: { port: number; user: string; dir: string }): string {
  const target = new URL(MACHINE_POSTGRES);
  return [
    '[databases]',
    // Every database (each test makes its own) on the machine's PostgreSQL.
    `* = host=${target.hostname} port=${target.port || 5432}`,
    `%include ${DEPLOY_INI}`,
    `listen_port = ${options.port}`,
    `auth_file = ${join(options.dir, 'users.txt')}`,
    `logfile = ${join(options.dir, 'pgbouncer.log')}`,
    `pidfile = ${join(options.dir, 'pgbouncer.pid')}`,
    '',
  ].join('\n');
}

export async function startPgBouncer(): Promise<Bouncer> {
  const user = decodeURIComponent(new URL(MACHINE_POSTGRES).username) || 'postgres';
  const dir = mkdtempSync(join(tmpdir(), 'hub-pgbouncer-'));
  const port = await freePort();
  const file = (name: string) => join(dir, name);
  writeFileSync(file('users.txt'), `"${user}" "${PGBOUNCER_PASSWORD}"\n`);
  writeFileSync(file('pgbouncer.ini'), testIni({ port, user, dir }));
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
    port,
    through(url) {
      const via = new URL(url);
      via.hostname = '127.0.0.1';
      via.port = String(port);
      via.username = user;
      via.password = PGBOUNCER_PASSWORD;
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
