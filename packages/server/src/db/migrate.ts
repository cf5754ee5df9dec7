import { readdir, readFile } from 'node:fs/promises';
import type { Sql } from 'postgres';
import { RELEASE } from '../release.js';

const MIGRATIONS = new URL('../../migrations/', import.meta.url);
// An arbitrary, fixed key: every hub instance takes the same lock.
const LOCK = 7_311_0001;

/** The migrations this release carries, in the order they apply. */
async function migrationFiles(): Promise<string[]> {
  return (await readdir(MIGRATIONS)).filter((name) => name.endsWith('.sql')).sort();
}

/**
 * Applies the forward-only migrations in migrations/ that this database has not seen, in name
 * order, in one transaction under an advisory lock: instances starting together take turns, and
 * the later ones find nothing left to do. Each is recorded with the release that applied it.
 */
export async function migrate(sql: Sql, release: string = RELEASE): Promise<string[]> {
  const files = await migrationFiles();
  return sql.begin(async (tx) => {
    // A migration may rewrite a large table, and may wait for another instance's: not bounded by
    // the hub's statement_timeout (db/connect.ts).
    await tx`set local statement_timeout = 0`;
    await tx`select pg_advisory_xact_lock(${LOCK})`;
    await tx`create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())`;
    // Which release applied each (null: one before releases were recorded).
    await tx`alter table schema_migrations add column if not exists release text`;
    const done = new Set((await tx<{ name: string }[]>`select name from schema_migrations`).map((row) => row.name));
    const applied: string[] = [];
    for (const name of files) {
      if (done.has(name)) continue;
      await tx.unsafe(await readFile(new URL(name, MIGRATIONS), 'utf8'));
      await tx`insert into schema_migrations (name, release) values (${name}, ${release})`;
      applied.push(name);
    }
    return applied;
  });
}

/** The migrations of this release that the database has not seen (all of them on an empty database). */
export async function pendingMigrations(sql: Sql): Promise<string[]> {
  const files = await migrationFiles();
  const [table] = await sql<{ exists: boolean }[]>`select to_regclass('schema_migrations') is not null as exists`;
  if (table?.exists !== true) return files;
  const done = new Set((await sql<{ name: string }[]>`select name from schema_migrations`).map((row) => row.name));
  return files.filter((name) => !done.has(name));
}
