// `hub-server migrate`: the database's migrations as a step of their own, for operators who roll
// instances one at a time and start them with HUB_MIGRATE_ON_START=false (docs/decisions.md,
// Rolling upgrades). It needs DATABASE_URL: the embedded database is migrated by the hub itself.
import { readConfig } from './config.js';
import { connectDatabase } from './db/connect.js';
import { migrate, pendingMigrations } from './db/migrate.js';
import { RELEASE } from './release.js';

export const USAGE = `Usage: hub-server [migrate [--check]]

  hub-server                  start the hub (the environment variables of the README configure it)
  hub-server migrate          apply the migrations this release carries to DATABASE_URL's database, then exit
  hub-server migrate --check  list the migrations the database lacks; exit 1 when there are any, 0 when none

Instances started with HUB_MIGRATE_ON_START=false apply none themselves: they refuse to start while
the database lacks a migration of their release.
`;

/** Runs `hub-server migrate [--check]`; the exit code. */
export async function migrateCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const unknown = args.filter((arg) => arg !== '--check');
  if (unknown.length > 0) {
    process.stderr.write(`hub-server migrate: unknown argument ${unknown[0]}\n\n${USAGE}`);
    return 2;
  }
  const config = readConfig(env);
  if (config.databaseUrl === undefined) {
    process.stderr.write(
      'hub-server migrate: set DATABASE_URL to the database to migrate (the embedded database is migrated when the hub starts).\n',
    );
    return 2;
  }
  const sql = connectDatabase(config.databaseUrl, { max: 1, name: 'hub-migrate', timeouts: config.database });
  try {
    if (args.includes('--check')) {
      const pending = await pendingMigrations(sql);
      process.stdout.write(
        pending.length === 0
          ? `The database has every migration of release ${RELEASE}.\n`
          : `The database lacks ${pending.length} migration(s) of release ${RELEASE}:\n${pending.map((name) => `  ${name}\n`).join('')}`,
      );
      return pending.length === 0 ? 0 : 1;
    }
    const applied = await migrate(sql, RELEASE);
    process.stdout.write(
      applied.length === 0
        ? `Nothing to apply: the database has every migration of release ${RELEASE}.\n`
        : `Applied ${applied.length} migration(s) of release ${RELEASE}:\n${applied.map((name) => `  ${name}\n`).join('')}`,
    );
    return 0;
  } catch (error) {
    process.stderr.write(`hub-server migrate: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
