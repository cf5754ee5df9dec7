// `hub-server migrate` (issue 29, rolling upgrades): migrations as a step of their own, recorded
// with the release that applied them; an instance started with HUB_MIGRATE_ON_START=false refuses
// a database that lacks one of its migrations, and starts on one that has them all.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/client.js';
import { connect, freshDatabase, startHub } from './support/hub.js';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const MIGRATIONS = readdirSync(fileURLToPath(new URL('../migrations/', import.meta.url)))
  .filter((name) => name.endsWith('.sql'))
  .sort();
const RELEASE = '0.1.0';

/** `hub-server <args>` as an operator runs it: its exit code and what it printed. */
function hubServer(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('hub-server migrate', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => database?.drop());

  it('refuses to start an instance with HUB_MIGRATE_ON_START=false on a database that lacks its migrations', async () => {
    await expect(startHub({ databaseUrl: database.url, env: { HUB_MIGRATE_ON_START: 'false' } })).rejects.toThrow(
      /lacks \d+ migration\(s\) of release .*run hub-server migrate first/,
    );
  }, 120_000);

  it('checks, applies each migration once with its release, and says when there is nothing to do', async () => {
    const env = { DATABASE_URL: database.url };
    const before = await hubServer(['migrate', '--check'], env);
    expect(before.code).toBe(1);
    expect(before.stdout).toContain(`lacks ${MIGRATIONS.length} migration(s) of release ${RELEASE}`);
    for (const name of MIGRATIONS) expect(before.stdout).toContain(`  ${name}\n`);

    const applied = await hubServer(['migrate'], env);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(`Applied ${MIGRATIONS.length} migration(s) of release ${RELEASE}:`);

    const sql = connect(database.url);
    try {
      const rows = await sql<
        { name: string; release: string }[]
      >`select name, release from schema_migrations order by name`;
      expect(rows).toEqual(MIGRATIONS.map((name) => ({ name, release: RELEASE })));
    } finally {
      await sql.end();
    }
    const again = await hubServer(['migrate'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`Nothing to apply: the database has every migration of release ${RELEASE}.\n`);
    expect((await hubServer(['migrate', '--check'], env)).code).toBe(0);
  }, 120_000);

  it('then starts an instance with HUB_MIGRATE_ON_START=false', async () => {
    const hub = await startHub({ databaseUrl: database.url, env: { HUB_MIGRATE_ON_START: 'false' } });
    try {
      expect((await call(hub, 'GET', '/readyz')).status).toBe(200);
    } finally {
      await hub.stop();
    }
  }, 120_000);

  it('says what it takes: --help, an unknown command or argument, no DATABASE_URL', async () => {
    const help = await hubServer(['--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('hub-server migrate --check');
    const unknown = await hubServer(['migrat'], {});
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('hub-server: unknown command migrat');
    const badArgument = await hubServer(['migrate', '--force'], { DATABASE_URL: database.url });
    expect(badArgument.code).toBe(2);
    expect(badArgument.stderr).toContain('unknown argument --force');
    const noDatabase = await hubServer(['migrate'], {});
    expect(noDatabase.code).toBe(2);
    expect(noDatabase.stderr).toContain('set DATABASE_URL');
  }, 60_000);
});
