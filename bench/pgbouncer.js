// @ts-check
// A PgBouncer (Debian's package) on a free loopback port, on deploy/pgbouncer.ini as it is, for
// bench/pgbouncer.bench.js and the tests (packages/server/test/support/pgbouncer.ts). The file
// written here %includes the deploy file and then sets again only its port, auth file, log and
// pid file. Those lines stay in the deploy file's last section, [pgbouncer]: a second
// [pgbouncer] header would start that section again from PgBouncer's defaults (1.18 does so),
// losing the deploy file's settings; so the database line, in [databases], comes first. As root
// it runs as the `postgres` account: PgBouncer refuses root.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { postgres } from './database.js';

const BINARY = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((path) => existsSync(path)) ?? 'pgbouncer';
const DEPLOY_INI = fileURLToPath(new URL('../deploy/pgbouncer.ini', import.meta.url));
/** The password PgBouncer asks of its clients (deploy/pgbouncer.ini checks it with SCRAM). */
const PASSWORD = 'hub-bench-pgbouncer';

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** @returns {Promise<number>} */
const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });

/** @param {number} port @returns {Promise<boolean>} */
const accepts = (port) =>
  new Promise((resolve) => {
    const probe = connect(port, '127.0.0.1');
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });

/**
 * PgBouncer in front of the PostgreSQL of `databaseUrl` (every database there): `through(url)` is
 * `url` by way of it (with `password`), `servers()` its server connections to `database` (SHOW
 * SERVERS), `stop()` stops it and removes its files.
 * @param {string} databaseUrl
 * @param {string} [password]
 */
export async function startPgBouncer(databaseUrl, password = PASSWORD) {
  const target = new URL(databaseUrl);
  const user = decodeURIComponent(target.username) || 'postgres';
  const dir = mkdtempSync(join(tmpdir(), 'hub-bench-pgbouncer-'));
  const port = await freePort();
  const file = (/** @type {string} */ name) => join(dir, name);
  writeFileSync(file('users.txt'), `"${user}" "${password}"\n`);
  writeFileSync(
    file('pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432}`,
      `%include ${DEPLOY_INI}`,
      `listen_port = ${port}`,
      `auth_file = ${file('users.txt')}`,
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
  const child = asRoot
    ? spawn('runuser', ['-u', 'postgres', '--', BINARY, file('pgbouncer.ini')], { stdio: 'ignore' })
    : spawn(BINARY, [file('pgbouncer.ini')], { stdio: 'ignore' });
  const log = () => (existsSync(file('pgbouncer.log')) ? readFileSync(file('pgbouncer.log'), 'utf8') : '');
  for (let tries = 0; !(await accepts(port)); tries++) {
    if (tries > 100 || child.exitCode !== null)
      throw new Error(`pgbouncer did not start (${child.exitCode}):\n${log()}`);
    await sleep(100);
  }
  /** @param {string} url */
  const through = (url) => {
    const via = new URL(url);
    via.hostname = '127.0.0.1';
    via.port = String(port);
    via.username = user;
    via.password = password;
    return via.toString();
  };
  const adminUrl = new URL(through(databaseUrl));
  adminUrl.pathname = '/pgbouncer';
  // Its admin console answers simple queries only, so no type look-up either.
  const admin = postgres(adminUrl.toString(), { max: 1, fetch_types: false, onnotice: () => {} });
  return {
    port,
    /** As `pgbouncer --version` says it, e.g. "1.18.0". */
    version: () => /PgBouncer (\S+)/.exec(execFileSync(BINARY, ['--version'], { encoding: 'utf8' }))?.[1] ?? '?',
    through,
    log,
    /** @param {string} database */
    async servers(database) {
      const rows = await admin.unsafe('SHOW SERVERS').simple();
      return rows.filter((/** @type {{ database: string }} */ row) => row.database === database).length;
    },
    async stop() {
      await admin.end({ timeout: 1 });
      const pid = Number(existsSync(file('pgbouncer.pid')) ? readFileSync(file('pgbouncer.pid'), 'utf8').trim() : 0);
      if (pid > 0) process.kill(pid, 'SIGTERM');
      for (let tries = 0; tries < 100 && (await accepts(port)); tries++) await sleep(50);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
