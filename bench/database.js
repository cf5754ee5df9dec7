// @ts-check
// A database of its own for a benchmark on the machine's PostgreSQL, which two hub instances can
// share; dropped by the cleanup it registers.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

/** The machine's PostgreSQL, where a bench creates (and drops) its own database. */
export const MACHINE_POSTGRES = process.env.HUB_BENCH_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres';
// postgres.js is the server's dependency, not the root's: resolved from packages/server.
export const postgres = createRequire(new URL('../packages/server/package.json', import.meta.url))('postgres');

/**
 * A fresh database, its URL and a line saying what it is; `url` undefined (and the line saying
 * why) when the machine's PostgreSQL cannot be reached: the bench then runs on one hub's embedded one.
 * @param {(() => Promise<unknown> | unknown)[]} cleanups
 * @returns {Promise<{ url: string | undefined, note: string }>}
 */
export async function createDatabase(cleanups) {
  const name = `hub_bench_${randomBytes(8).toString('hex')}`;
  try {
    const admin = postgres(MACHINE_POSTGRES, { max: 1, onnotice: () => {}, connect_timeout: 5 });
    try {
      await admin.unsafe(`create database ${name}`);
      cleanups.push(async () => {
        const admin = postgres(MACHINE_POSTGRES, { max: 1, onnotice: () => {} });
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end();
      });
      const [{ version }] = await admin`select current_setting('server_version') as version`;
      const url = new URL(MACHINE_POSTGRES);
      url.pathname = `/${name}`;
      return { url: url.toString(), note: `PostgreSQL ${version} on ${url.host}, database ${name}` };
    } finally {
      await admin.end();
    }
  } catch (error) {
    return {
      url: undefined,
      note: `embedded PostgreSQL, one instance (no database at ${new URL(MACHINE_POSTGRES).host}: ${error instanceof Error ? error.message : String(error)}; set HUB_BENCH_POSTGRES)`,
    };
  }
}
