// The embedded PostgreSQL started by the hub itself: from binaries the postgres account cannot
// reach (as root), and after a hub that was killed left its PostgreSQL running.
import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { packageBinaries } from '../src/db/embedded-access.js';
import { startEmbedded } from '../src/db/embedded.js';
import { processAlive, startHub } from './support/hub.js';

const AS_ROOT = process.getuid?.() === 0;
const MINUTE = 60_000;
const NOT_ROOT =
  'only as root does PostgreSQL run as another account (postgres); otherwise it runs as the hub does and reaches what the hub reaches';

const postmasterPid = (cluster: string) => Number(readFileSync(join(cluster, 'postmaster.pid'), 'utf8').split('\n')[0]);

describe('the embedded PostgreSQL', () => {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });
  const temporary = (parent: string, prefix: string, mode: number) => {
    const dir = mkdtempSync(join(parent, prefix));
    chmodSync(dir, mode);
    made.push(dir);
    return dir;
  };
  /** The package's binaries, copied where only root can reach them (a 0700 directory). */
  const hiddenBinaries = async () => {
    const { dir } = await packageBinaries();
    const hidden = temporary(tmpdir(), 'hub-binaries-', 0o700);
    cpSync(dir, join(hidden, 'native'), { recursive: true, verbatimSymlinks: true });
    return { hidden, binaries: { dir: join(hidden, 'native'), version: `test-${randomBytes(4).toString('hex')}` } };
  };

  it(
    'runs binaries the postgres account cannot reach from a copy in a place it can',
    async ({ skip }) => {
      if (!AS_ROOT) skip(NOT_ROOT);
      const { hidden, binaries } = await hiddenBinaries();
      const root = temporary('/var/tmp', 'hub-reachable-', 0o755);
      const dataDir = temporary(tmpdir(), 'hub-embedded-', 0o700);
      const warnings: { message: string; fields?: Record<string, unknown> }[] = [];
      const log = {
        debug: () => {},
        warn: (message: string, fields?: Record<string, unknown>) => warnings.push({ message, fields }),
      };
      const password = randomBytes(16).toString('hex');
      const embedded = await startEmbedded(dataDir, password, log, { binaries, reachableRoot: root });
      try {
        const copy = join(root, `postgres-${binaries.version}-${platform()}-${arch()}`);
        expect(warnings).toContainEqual({
          message: 'embedded PostgreSQL binaries copied',
          fields: { from: binaries.dir, to: copy, reason: `the postgres account cannot enter ${hidden}` },
        });
        expect(readlinkSync(`/proc/${postmasterPid(join(dataDir, 'postgres'))}/exe`)).toBe(
          join(copy, 'bin', 'postgres'),
        );
        const sql = postgres(embedded.url, { max: 1, onnotice: () => {} });
        expect(await sql`select current_user as user`).toEqual([{ user: 'hub' }]);
        await sql.end();
      } finally {
        await embedded.stop();
      }
      // The copy is made once: the next start uses it as it is.
      warnings.length = 0;
      const again = await startEmbedded(dataDir, password, log, { binaries, reachableRoot: root });
      await again.stop();
      expect(warnings).toEqual([]);
    },
    5 * MINUTE,
  );

  it(
    'says which directory blocks the postgres account, and what to do, when no place it can reach can be made',
    async ({ skip }) => {
      if (!AS_ROOT) skip(NOT_ROOT);
      const { binaries } = await hiddenBinaries();
      const closed = temporary(tmpdir(), 'hub-closed-', 0o700);
      const dataDir = temporary(tmpdir(), 'hub-embedded-', 0o700);
      const log = { debug: () => {}, warn: () => {} };
      await expect(startEmbedded(dataDir, 'x', log, { binaries, reachableRoot: join(closed, 'hub') })).rejects.toThrow(
        `the embedded PostgreSQL's binaries in ${join(closed, 'hub', `postgres-${binaries.version}-${platform()}-${arch()}`)} cannot be reached by the postgres account that PostgreSQL runs as (the hub runs as root, and PostgreSQL refuses root): it cannot enter ${closed}. ` +
          `Install the hub where it can enter (not under /root), or set DATABASE_URL to a PostgreSQL of yours, or let it in (chmod o+x ${closed})`,
      );
      expect(existsSync(join(dataDir, 'postgres', 'PG_VERSION'))).toBe(false);
    },
    5 * MINUTE,
  );

  it(
    'stops, on the next start, the PostgreSQL that a killed hub left running',
    async () => {
      const dataDir = temporary(tmpdir(), 'hub-embedded-', 0o700);
      const first = await startHub({ dataDir });
      const orphan = postmasterPid(join(dataDir, 'postgres'));
      first.process.kill('SIGKILL');
      await first.stop();
      // In a session of its own, PostgreSQL outlives a hub killed outright.
      expect(processAlive(orphan)).toBe(true);
      const second = await startHub({ dataDir });
      try {
        expect(processAlive(orphan)).toBe(false);
        expect(second.output()).toContain(
          '"message":"stopping the embedded PostgreSQL left running by a hub that has gone"',
        );
        expect(postmasterPid(join(dataDir, 'postgres'))).not.toBe(orphan);
      } finally {
        expect(await second.stop()).toBe(0);
      }
    },
    5 * MINUTE,
  );
});
