// The previous release, for the rolling-upgrade drill: the repository at the commit before the one
// that added the newest migration (docs/decisions.md, "The rolling-upgrade drill"), extracted with
// `git archive` and built once into node_modules/.cache/hub-old-release-<sha>, which later runs
// reuse (a fresh clone, as CI's, builds it once per run: a minute or two).
import { execFile, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The newest migration: the old release is the commit before the one that added it. */
export const NEWEST_MIGRATION = 'packages/server/migrations/016_webhooks.sql';
const PNPM = ['-y', 'pnpm@10.34.9'];
/** Written last: a directory without it is a build that was cut short, built again. */
const BUILT = '.hub-old-release-built';

export interface OldRelease {
  commit: string;
  root: string;
  /** Its packages/server/dist/main.js. */
  main: string;
}

function progress(line: string): void {
  process.stderr.write(`old release: ${line}\n`);
}

async function git(repository: string, args: string[]): Promise<string> {
  return (await run('git', ['-C', repository, ...args])).stdout.trim();
}

/**
 * The commit before NEWEST_MIGRATION's. A shallow clone is deepened first (git fetch --unshallow,
 * from wherever it was cloned); a clear error when the history still does not reach it.
 */
async function oldCommit(repository: string): Promise<string> {
  const found = await parentOfNewest(repository);
  if (found !== '') return found;
  const shallow = (await git(repository, ['rev-parse', '--is-shallow-repository']).catch(() => '')) === 'true';
  if (shallow) {
    progress('a shallow clone: fetching the rest of its history (git fetch --unshallow)');
    await git(repository, ['fetch', '--quiet', '--unshallow']).catch((error: Error) => progress(error.message));
    const deepened = await parentOfNewest(repository);
    if (deepened !== '') return deepened;
  }
  throw new Error(
    `The rolling-upgrade drill runs the hub from the commit before ${NEWEST_MIGRATION} was added, and this ` +
      `clone's history does not reach it${shallow ? ' (a shallow clone, and git fetch --unshallow failed)' : ''}: ` +
      `fetch the full history (git fetch --unshallow, or actions/checkout with fetch-depth: 0) and run it again.`,
  );
}

async function parentOfNewest(repository: string): Promise<string> {
  const added = await git(repository, ['log', '--diff-filter=A', '--format=%H', '--', NEWEST_MIGRATION]).catch(
    () => '',
  );
  const parent =
    added === '' ? '' : await git(repository, ['rev-parse', '--verify', `${added}^{commit}^`]).catch(() => '');
  return parent;
}

/** Runs a command in `cwd`, its output kept for the error should it fail. */
function command(cwd: string, program: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: 'true' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${program} ${args.join(' ')} exited ${code}:\n${output.slice(-4000)}`)),
    );
  });
}

/** Renames, or copies (links as they are) when `to` is on another file system. */
async function moveInto(from: string, to: string): Promise<void> {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    const copy = `${to}.copy-${process.pid}`;
    await run('cp', ['-a', from, copy]);
    renameSync(copy, to);
    rmSync(from, { recursive: true, force: true });
  }
}

/** The old release, built; built first when the cache does not hold it. */
export async function oldRelease(): Promise<OldRelease> {
  const repository = await git(dirname(fileURLToPath(import.meta.url)), ['rev-parse', '--show-toplevel']);
  const commit = await oldCommit(repository);
  const cache = join(repository, 'node_modules', '.cache');
  const root = join(cache, `hub-old-release-${commit}`);
  const release = { commit, root, main: join(root, 'packages', 'server', 'dist', 'main.js') };
  // An embedded PostgreSQL may run as the `postgres` account (as root): it must reach the release.
  const reachable = () => {
    for (const dir of [join(repository, 'node_modules'), cache, root]) chmodSync(dir, 0o755);
  };
  if (existsSync(join(root, BUILT))) {
    reachable();
    return release;
  }

  const began = Date.now();
  const seconds = () => `${Math.round((Date.now() - began) / 1000)} s`;
  // Built elsewhere and moved into place whole: a run cut short leaves nothing half-built there,
  // two runs at once do not build into one directory, and TypeScript refuses to emit declarations
  // for sources under a node_modules directory (TS2742). pnpm's links are relative: it moves.
  const building = mkdtempSync(join(tmpdir(), 'hub-old-release-'));
  mkdirSync(cache, { recursive: true });
  try {
    progress(`extracting ${commit.slice(0, 12)} (the commit before ${NEWEST_MIGRATION}'s) into ${building}`);
    await command(repository, 'sh', ['-c', 'git archive "$1" | tar -x -C "$2"', 'sh', commit, building]);
    progress(`installing its dependencies (offline first) [${seconds()}]`);
    await command(building, 'npx', [...PNPM, 'install', '--frozen-lockfile', '--offline']).catch((error: Error) => {
      progress(`offline install failed, installing online: ${error.message.split('\n')[0]}`);
      return command(building, 'npx', [...PNPM, 'install', '--frozen-lockfile']);
    });
    progress(`building the server and what it imports [${seconds()}]`);
    await command(building, 'npx', [...PNPM, 'exec', 'tsc', '-b', 'packages/server']);
    writeFileSync(join(building, BUILT), `${commit}\n`);
    if (existsSync(join(root, BUILT))) rmSync(building, { recursive: true, force: true });
    else {
      rmSync(root, { recursive: true, force: true });
      await moveInto(building, root);
    }
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    throw error;
  }
  reachable();
  progress(`built in ${root} [${seconds()}]`);
  return release;
}
