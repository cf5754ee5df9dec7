import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DashboardStore } from './dashboard/types.js';

/**
 * While the hub has no owner, a one-time link to the setup page: printed, and kept in the data
 * directory (0600) until an owner exists. Each start issues a fresh one.
 */
export async function setupLink(store: DashboardStore, dataDir: string, origin: string): Promise<string> {
  const file = join(dataDir, 'setup-url');
  const token = (await store.setupPending()) ? await store.issueSetupToken() : undefined;
  if (token === undefined) {
    await rm(file, { force: true });
    return '';
  }
  const url = `${origin}/setup?token=${token}`;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFile(file, `${url}\n`, { mode: 0o600 });
  return `Set up the hub (one time; also in ${file}): ${url}\n`;
}
