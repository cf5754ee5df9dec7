// @ts-check
/**
 * `pnpm bench:schedule`: schedules at scale (issue 26). 10,000 schedule entries across 1,000
 * projects (HUB_BENCH_SCHEDULE_PROJECTS), all due in the same minute, on two hub instances
 * sharing one PostgreSQL: every tick fired once, and how late (p50, p99, max; target p99 < 5 s).
 * Then the idle cost: a hub's CPU over a minute with 10,000 schedules that are not due, over the
 * same hub's CPU over a minute with none, measured in the same run (target at most 1.2). Prints;
 * never fails on a missed target. About five minutes. See bench/README.md.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { call, expectOk } from './access-hub.js';
import { createDatabase, postgres } from './database.js';
import { startProcess } from './process.js';
import { check, cleanupOnExit, quantile, table } from './report.js';

const PROJECTS = Number(process.env.HUB_BENCH_SCHEDULE_PROJECTS || 1000);
const ENTRIES = 10;
const IDLE_S = Number(process.env.HUB_BENCH_SCHEDULE_IDLE_S || 60);
const LATENESS_TARGET_MS = 5_000;
const IDLE_TARGET = 1.2;
/** Installs sent at once. */
const INSTALLS_AT_ONCE = 8;

const root = new URL('..', import.meta.url).pathname;
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A project's configuration: one trigger with ENTRIES schedule entries of `cron`. @param {string} cron */
const configuration = (cron) => `
environments:
  - { name: box, kind: daemon, daemon: bench-box, cwd: /tmp/bench }
triggers:
  - name: nightly
    max_runtime: 1h
    on:
      schedule:
${Array.from({ length: ENTRIES }, (_, i) => `        - { cron: "${cron}", input: "entry ${i}" }`).join('\n')}
    steps:
      - { id: go, environment: box, agent: { provider: claude }, prompt: [{ text: "Scheduled at {{ event.scheduled_at }}: {{ prompt }}" }] }
`;

/**
 * One request through the benches' client (bench/access-hub.js); anything but a 2xx stops the
 * bench. Its JSON body.
 * @param {string} url @param {string} method @param {string} path
 * @param {{ token?: string, body?: unknown }} [options]
 */
async function request(url, method, path, options = {}) {
  const answer = await call(url, method, path, { token: options.token, json: options.body });
  expectOk(answer, `${method} ${path}`);
  return answer.body;
}

/** A process's CPU time so far (user + system), in ms, from /proc. @param {number} pid */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are the 14th and 15th fields, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** `task` for each item, `atOnce` at a time. @template T @param {T[]} items @param {(item: T) => Promise<void>} task */
async function eachAtOnce(items, task, atOnce = INSTALLS_AT_ONCE) {
  let next = 0;
  await Promise.all(
    Array.from({ length: atOnce }, async () => {
      while (next < items.length) await task(/** @type {T} */ (items[next++]));
    }),
  );
}

const startedAt = performance.now();
const dirs = [mkdtempSync(join(tmpdir(), 'hub-bench-schedule-')), mkdtempSync(join(tmpdir(), 'hub-bench-schedule-'))];
const adminToken = `hub_admin_bench_${randomBytes(16).toString('hex')}`;
const { cleanups, cleanUp } = cleanupOnExit([
  () => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })),
]);

try {
  const database = await createDatabase(cleanups);
  let databaseUrl = database.url;
  /** @param {string} dataDir */
  const startHub = async (dataDir) => {
    const hub = await startProcess(
      ['packages/server/dist/main.js'],
      {
        PORT: '0',
        HUB_DATA_DIR: dataDir,
        HUB_ADMIN_TOKEN: adminToken,
        HUB_LOG_LEVEL: 'warn',
        ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
      },
      { cwd: root },
    );
    cleanups.push(hub.stop);
    return hub;
  };
  const first = await startHub(/** @type {string} */ (dirs[0]));
  databaseUrl ??= readFileSync(join(/** @type {string} */ (dirs[0]), 'database-url'), 'utf8').trim();
  const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
  cleanups.push(() => sql.end({ timeout: 5 }));

  const admin = { token: adminToken };
  await request(first.url, 'POST', '/api/admin/v1/organizations', { ...admin, body: { slug: 'bench', name: 'Bench' } });
  const key = await request(first.url, 'POST', '/api/admin/v1/organizations/bench/api-keys', {
    ...admin,
    body: { name: 'bench', scopes: ['configuration:install', 'daemons:enroll', 'projects:read', 'runs:read'] },
  });
  const enrollment = await request(first.url, 'POST', '/api/v1/daemons/enrollment-tokens', { token: key.secret });
  const x = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x;
  await request(first.url, 'POST', '/api/v1/daemons/enroll', {
    body: {
      token: enrollment.token,
      name: 'bench-box',
      publicKey: { kty: 'OKP', crv: 'Ed25519', x },
      runtimes: [{ provider: 'claude' }],
    },
  });
  // Online for the whole bench without a heartbeat loop: seen "in an hour".
  await sql`update daemons set last_seen_at = now() + interval '1 hour' where name = 'bench-box'`;
  const slugs = Array.from({ length: PROJECTS }, (_, i) => `p${String(i).padStart(4, '0')}`);
  await eachAtOnce(slugs, async (slug) => {
    await request(first.url, 'POST', '/api/admin/v1/organizations/bench/projects', {
      ...admin,
      body: { slug, name: slug },
    });
  });
  /** Every project gets ENTRIES entries of `cron`; resolves once each has its first tick. @param {string} cron */
  const installAll = async (cron) => {
    const began = performance.now();
    await eachAtOnce(slugs, async (slug) => {
      await request(first.url, 'POST', '/api/v1/configurations/install', {
        token: key.secret,
        body: { projectSlug: slug, yaml: configuration(cron) },
      });
    });
    for (;;) {
      const [row] = await sql`select count(*)::int as waiting from schedule_entries where next_fire_at is null`;
      if (row?.waiting === 0) break;
      await sleep(100);
    }
    return (performance.now() - began) / 1000;
  };

  // Idle cost: a minute with no schedule, then a minute with 10,000 that are not due.
  const pid = /** @type {number} */ (first.child.pid);
  const idleMinute = async () => {
    const before = cpuMs(pid);
    await sleep(IDLE_S * 1000);
    return ((cpuMs(pid) - before) * 60) / IDLE_S;
  };
  await sleep(5_000);
  const idleNone = await idleMinute();
  const installIdle = await installAll('0 0 1 1 *');
  await sleep(5_000);
  const idleMany = await idleMinute();

  // Firing: every entry `* * * * *`, two instances, the next whole minute.
  const second = databaseUrl === database.url ? await startHub(/** @type {string} */ (dirs[1])) : undefined;
  const installFiring = await installAll('* * * * *');
  const [{ tick }] = await sql`select min(next_fire_at) as tick from schedule_entries`;
  const expected = PROJECTS * ENTRIES;
  let allFiredAfterMs = NaN;
  for (;;) {
    const [row] =
      await sql`select count(*)::int as fired from trigger_runs where event ->> 'scheduledAt' = ${tick.toISOString()}`;
    if (row?.fired >= expected) {
      allFiredAfterMs = Date.now() - tick.getTime();
      break;
    }
    check(
      Date.now() - tick.getTime() < 120_000,
      `only ${row?.fired} of ${expected} ticks fired two minutes after the tick`,
    );
    await sleep(100);
  }
  // Everything due has been claimed; look a second longer for a tick fired twice.
  await sleep(1_000);
  const late = await sql`
    select extract(epoch from created_at - ${tick}::timestamptz) * 1000 as ms, delivery_key as key, status
    from trigger_runs where event ->> 'scheduledAt' = ${tick.toISOString()} order by 1`;
  const keys = new Set(late.map((run) => run.key));
  const failed = late.filter((run) => run.status === 'failed').length;
  const lateness = late.map((run) => Number(run.ms));

  console.log(
    `bench:schedule: ${PROJECTS} projects x ${ENTRIES} entries = ${expected} schedule entries; ${database.note}`,
  );
  console.log(`instances firing: ${second === undefined ? 1 : 2}; tick ${tick.toISOString()}\n`);
  console.log(
    table(
      [
        ['ticks fired', 'distinct', 'failed', 'p50 late', 'p99 late', 'max late', 'all committed by', 'target p99'],
        [
          late.length,
          keys.size,
          failed,
          `${quantile(lateness, 0.5).toFixed(0)} ms`,
          `${quantile(lateness, 0.99).toFixed(0)} ms`,
          `${(lateness.at(-1) ?? NaN).toFixed(0)} ms`,
          `${allFiredAfterMs.toFixed(0)} ms`,
          `< ${LATENESS_TARGET_MS} ms`,
        ],
      ],
      ['r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
  );
  console.log(
    '\n(late: a run\'s created_at, its transaction\'s start, after the tick; "all committed by": when the last of them was visible to the bench)\n',
  );
  console.log(
    table(
      [
        ['hub CPU per minute', 'no schedule', `${expected} not due`, 'ratio', 'target'],
        [
          '',
          `${idleNone.toFixed(0)} ms`,
          `${idleMany.toFixed(0)} ms`,
          (idleMany / idleNone).toFixed(2),
          `<= ${IDLE_TARGET}`,
        ],
      ],
      ['l', 'r', 'r', 'r', 'r'],
    ),
  );
  console.log(
    `\ninstalls: ${installIdle.toFixed(1)} s and ${installFiring.toFixed(1)} s for ${PROJECTS} each (first ticks computed); bench ${((performance.now() - startedAt) / 1000).toFixed(0)} s`,
  );
  check(
    late.length === expected && keys.size === expected,
    `${late.length} runs for ${expected} ticks, ${keys.size} distinct`,
  );
} finally {
  await cleanUp();
}
