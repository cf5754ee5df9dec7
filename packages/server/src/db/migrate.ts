import { readdir, readFile } from 'node:fs/promises';
import type { Sql } from 'postgres';

const MIGRATIONS = new URL('../../migrations/', import.meta.url);
// An arbitrary, fixed key: every hub instance takes the same lock.
const LOCK = 7_311_0001;

/**
 * Applies the forward-only migrations in migrations/ that this database has not seen, in name
 * order, in one transaction under an advisory lock: instances starting together take turns, and
 * the later ones find nothing left to do.
 */
export async function migrate(sql: Sql): Promise<string[]> {
  const files = (await readdir(MIGRATIONS)).filter((name) => name.endsWith('.sql')).sort();
  return sql.begin(async (tx) => {
    // A migration may rewrite a large table, and may wait for another instance's: not bounded by
    // the hub's statement_timeout (db/connect.ts).
    await tx`set local statement_timeout = 0`;
    await tx`select pg_advisory_xact_lock(${LOCK})`;
    await tx`create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())`;
    const done = new Set((await tx<{ name: string }[]>`select name from schema_migrations`).map((row) => row.name));
    const applied: string[] = [];
    for (const name of files) {
      if (done.has(name)) continue;
      await tx.unsafe(await readFile(new URL(name, MIGRATIONS), 'utf8'));
      await tx`insert into schema_migrations (name) values (${name})`;
      applied.push(name);
    }
    return applied;
  });
}
