#!/usr/bin/env node
// Starts the hub: the database (embedded unless DATABASE_URL), migrations, the compile pool and
// the HTTP server; stops them in reverse order on SIGINT and SIGTERM.
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { createApp, Hub } from './app.js';
import { createCompilePool } from './compile/pool.js';
import { dataDirSecret, makeAdminToken, makeDatabasePassword, readConfig } from './config.js';
import { startEmbedded, type EmbeddedDatabase } from './db/embedded.js';
import { migrate } from './db/migrate.js';
import { createLogger, parseLevel } from './http/logger.js';

/** Large enough for the largest legal request as clients send it (see docs/decisions.md). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

async function main(): Promise<void> {
  const config = readConfig(process.env);
  const log = createLogger(parseLevel(config.logLevel));
  const admin = process.env.HUB_ADMIN_TOKEN
    ? { value: process.env.HUB_ADMIN_TOKEN, created: false }
    : await dataDirSecret(config.dataDir, 'admin-token', makeAdminToken);

  let embedded: EmbeddedDatabase | undefined;
  let url = config.databaseUrl;
  if (url === undefined) {
    const password = await dataDirSecret(config.dataDir, 'postgres-password', makeDatabasePassword);
    embedded = await startEmbedded(config.dataDir, password.value, log);
    url = embedded.url;
    // For operators (psql "$(cat .hub-data/database-url)") and tests; the port changes each start.
    await writeFile(join(config.dataDir, 'database-url'), `${url}\n`, { mode: 0o600 });
  }
  const sql = postgres(url, { max: 10, onnotice: () => {}, connection: { application_name: 'hub' } });
  const applied = await migrate(sql);
  if (applied.length > 0) log.info('migrations applied', { applied });

  // Listen first: with PORT=0 the public URL, and so the problem types, name the bound port.
  const server = createServer();
  server.listen(config.port, config.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const origin = config.publicUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const pool = createCompilePool();
  const hub = new Hub(sql, pool.compile, log, { problemBase: config.problemBase ?? origin, adminToken: admin.value, maxBodyBytes: MAX_BODY_BYTES });
  server.on('request', createApp(hub));
  log.info('hub listening', { url: origin, database: embedded === undefined ? 'external' : 'embedded' });
  const tokenLine = admin.created ? `Admin token (shown once; also in ${config.dataDir}/admin-token): ${admin.value}\n` : '';
  process.stdout.write(`${tokenLine}Hub listening on ${origin}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('stopping', { signal });
    server.close();
    server.closeIdleConnections();
    await once(server, 'close');
    await pool.close();
    await sql.end({ timeout: 5 });
    await embedded?.stop();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`hub: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
