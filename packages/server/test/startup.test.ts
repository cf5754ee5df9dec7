// Start-up as clients and operators meet it: the hub listens before anything else, and answers
// every request at once (503 `not_ready` until it is ready), never holding a connection nobody
// serves; and a signal at any point of start-up stops it, exit 0, its PostgreSQL stopped too.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from './support/hub.js';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
/** db/migrate.ts's advisory lock: held here, it keeps a starting hub in its migrations. */
const MIGRATION_LOCK = 7_311_0001;

interface Starting {
  /** Resolves with the fields of the debug line `started part` for `name`. */
  phase(name: string): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
  output(): string;
  kill(signal: NodeJS.Signals): void;
}

function startDebug(env: Record<string, string>): Starting {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', HUB_LOG_LEVEL: 'debug', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiting = new Set<() => void>();
  const take = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of [...waiting]) check();
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const phase = (name: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        for (const line of output.split('\n')) {
          if (!line.includes('"started part"')) continue;
          const fields = JSON.parse(line) as Record<string, unknown>;
          if (fields.name !== name) continue;
          waiting.delete(check);
          return resolve(fields);
        }
      };
      waiting.add(check);
      check();
      void exited.then(() => waiting.has(check) && reject(new Error(`exited before ${name}:\n${output}`)));
    });
  return { phase, exited, output: () => output, kill: (signal) => child.kill(signal) };
}

/** One GET, its answer or how it failed; a connection left unanswered for 10 s counts as a hang. */
async function get(url: string, accept: string): Promise<{ status: number; retryAfter: string | null; body: string }> {
  const answer = await fetch(url, { headers: { accept }, signal: AbortSignal.timeout(10_000) });
  return { status: answer.status, retryAfter: answer.headers.get('retry-after'), body: await answer.text() };
}

describe('a starting hub', () => {
  let database: { url: string; drop(): Promise<void> };
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-startup-'));

  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers every request at once while it starts: 503 not_ready with Retry-After, then served', async () => {
    // Another instance's migration holds the hub in its own until released.
    const holder = postgres(database.url, { max: 1, onnotice: () => {} });
    const reserved = await holder.reserve();
    await reserved`select pg_advisory_lock(${MIGRATION_LOCK})`;
    const hub = startDebug({ DATABASE_URL: database.url, HUB_DATA_DIR: dataDir });
    try {
      const { url } = (await hub.phase('listening')) as { url: string };
      await hub.phase('database health');
      const answers = await Promise.all([
        get(`${url}/readyz`, 'application/json'),
        get(`${url}/api/v1/projects`, 'application/json'),
        get(`${url}/projects`, 'text/html'),
      ]);
      for (const answer of answers) expect(answer).toMatchObject({ status: 503, retryAfter: '1' });
      const [readiness, api, page] = answers;
      expect(JSON.parse(readiness?.body as string)).toMatchObject({ code: 'not_ready', status: 503 });
      expect(JSON.parse(api?.body as string)).toMatchObject({
        type: `${url}/problems/not_ready`,
        code: 'not_ready',
        detail: 'The hub is starting; try again in a moment.',
      });
      expect(page?.body).toContain('The hub is starting');
      // Alive all the same: liveness is not readiness.
      expect(await get(`${url}/healthz`, 'application/json')).toMatchObject({ status: 200, body: '{"status":"ok"}' });

      await reserved`select pg_advisory_unlock(${MIGRATION_LOCK})`;
      await hub.phase('setup link');
      await expect.poll(async () => (await get(`${url}/readyz`, 'application/json')).status).toBe(200);
      expect((await get(`${url}/api/v1/projects`, 'application/json')).status).toBe(401);
    } finally {
      reserved.release();
      await holder.end();
      hub.kill('SIGTERM');
      expect(await hub.exited).toBe(0);
    }
  }, 120_000);

  // Each point of start-up that main.ts logs, in order; a SIGTERM there stops the hub in order.
  const external = [
    'listening',
    'database connections',
    'key-check connections',
    'database health',
    'compile pool',
    'HTTP server',
    'assignment wake-ups',
    'output wake-ups',
    'sweeper',
    'scheduler',
    'new connections',
    'setup link',
  ];
  it.each(external)(
    'stops, exit 0, on a SIGTERM once it has reached "%s"',
    async (name) => {
      const hub = startDebug({ DATABASE_URL: database.url, HUB_DATA_DIR: dataDir });
      await hub.phase(name);
      hub.kill('SIGTERM');
      expect(await hub.exited, hub.output()).toBe(0);
      expect(hub.output()).toMatch(/"message":"stopped"/);
    },
    60_000,
  );

  it.each(['listening', 'embedded PostgreSQL'])(
    'with its own PostgreSQL, stops it too on a SIGTERM once it has reached "%s"',
    async (name) => {
      const own = mkdtempSync(join(tmpdir(), 'hub-startup-embedded-'));
      try {
        const hub = startDebug({ HUB_DATA_DIR: own });
        await hub.phase(name);
        hub.kill('SIGTERM');
        expect(await hub.exited, hub.output()).toBe(0);
        expect(hub.output()).toMatch(/"message":"stopped"/);
        expect(existsSync(join(own, 'postgres', 'postmaster.pid'))).toBe(false);
      } finally {
        rmSync(own, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
