// Where the CLI keeps its files. Each kind of state has its own file beside the others
// (daemons.json now; CLI credentials later), so that one command never rewrites another's secrets.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** `HUB_CONFIG_DIR`, else `$XDG_CONFIG_HOME/hub`, else `~/.config/hub` (a relative XDG_CONFIG_HOME is ignored, as the XDG spec says). */
export function configDir(env: Record<string, string | undefined>): string {
  if (env.HUB_CONFIG_DIR) return resolve(env.HUB_CONFIG_DIR);
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.config');
  return join(base, 'hub');
}

/**
 * Replaces `path` with `content` in one step: a reader sees the old file or the new one, never a
 * half-written one, even if the process dies mid-write. The file is created with `mode` (secrets:
 * 0600) and its directory with 0700.
 */
export async function writeFileAtomic(path: string, content: string, mode: number): Promise<void> {
  await privateDir(dirname(path));
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** The directory, readable by its owner only: it holds private keys and credentials. */
async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}
