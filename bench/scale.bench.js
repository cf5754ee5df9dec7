// @ts-check
/**
 * `pnpm bench:scale` (first half; bench/scale-sweeps.bench.js is the second): whether the hot
 * requests slow down as history piles up. Two hubs on two databases of the machine's PostgreSQL:
 * one kept empty (its runs and old revisions deleted before each of its measurements), one seeded
 * with SQL (generate_series) to 20,000 and then 200,000 runs (each with an execution and a line
 * of output) and 200,000 inactive configuration revisions, and 200, 1,000 and 10,000 projects.
 * Each request is measured on both back to back, three times (in alternating order), and the
 * median of the three ratios empty req/s ÷ history req/s is printed per size: target within 1.3x
 * for all but the plain projects list, a deliberate full listing. Prints; never fails on a missed target. See
 * bench/README.md.
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { createDatabase, postgres } from './database.js';
import { startProcess } from './process.js';
import { check, cleanupOnExit, table } from './report.js';

const SIZES = [20_000, 200_000];
/**
 * Projects of the organization with each size of history (the empty hub has the first: two pages,
 * so that a page from the middle is as long on both hubs).
 */
const PROJECTS = new Map([
  [0, 200],
  [20_000, 1_000],
  [200_000, 10_000],
]);
const CONNECTIONS = Number(process.env.HUB_BENCH_SCALE_CONNECTIONS || 8);
const DURATION_S = Number(process.env.HUB_BENCH_SCALE_SECONDS || 3);
const WARMUP_S = 1;
/** Measurements of each request on each hub, in pairs (HUB_BENCH_SCALE_PAIRS). */
const PAIRS = Number(process.env.HUB_BENCH_SCALE_PAIRS || 3);
const TARGET = 1.3;
/** Rows per seeding statement. */
const BATCH = 50_000;
const PAGE = 100;

const root = new URL('..', import.meta.url).pathname;
const adminToken = `hub_admin_bench_${randomBytes(16).toString('hex')}`;

const CONFIGURATION = `
environments:
  - { name: load, kind: daemon, daemon: load-box, cwd: /tmp/bench }
triggers:
  - name: load
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [bench-bot] }
    steps:
      - { id: go, environment: load, agent: { provider: claude, mode: edit }, prompt: [ { text: "Benchmark run. {{ prompt }}" } ] }
`;

/**
 * @param {string} url
 * @param {string} method
 * @param {string} path
 * @param {{ token?: string, body?: unknown, headers?: Record<string, string> }} [options]
 */
async function request(url, method, path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url + path, { method, headers, body });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

/** A daemon's signed heartbeat (METHOD\nPATH\nTIMESTAMP\nNONCE\nBASE64URL(SHA-256(BODY))), which keeps it online. */
function heartbeat(
  /** @type {string} */ url,
  /** @type {string} */ daemonId,
  /** @type {import('node:crypto').KeyObject} */ privateKey,
) {
  const raw = '{}';
  const digest = createHash('sha256').update(raw).digest('base64url');
  const timestamp = String(Date.now());
  const nonce = randomBytes(18).toString('base64url');
  const path = '/api/v1/daemon/heartbeat';
  const signature = sign(null, Buffer.from(`POST\n${path}\n${timestamp}\n${nonce}\n${digest}`), privateKey).toString(
    'base64url',
  );
  return request(url, 'POST', path, {
    body: raw,
    headers: { 'hub-daemon': daemonId, 'hub-timestamp': timestamp, 'hub-nonce': nonce, 'hub-signature': signature },
  });
}

/**
 * autocannon for DURATION_S after WARMUP_S of the same load, unmeasured.
 * @param {string} url
 * @param {object} requestSpec
 */
async function load(url, requestSpec) {
  const run = (/** @type {number} */ duration) =>
    new Promise((resolve, reject) => {
      autocannon({ url, connections: CONNECTIONS, duration, requests: [requestSpec] }, (error, result) =>
        error ? reject(error) : resolve(result),
      );
    });
  await run(WARMUP_S);
  const result = /** @type {any} */ (await run(DURATION_S));
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    non2xx: result.non2xx + result.errors + result.timeouts,
  };
}

const { cleanups, cleanUp, interrupted } = cleanupOnExit([]);
const startedAt = performance.now();

/**
 * A hub on a database of its own, with an organization, its key, the daemon load-box kept
 * online, the configuration installed, and a run to replay and read.
 * @param {string} label
 */
async function startHub(label) {
  const database = await createDatabase(cleanups);
  check(database.url !== undefined, `bench:scale needs the machine's PostgreSQL: ${database.note}`);
  const dataDir = mkdtempSync(join(tmpdir(), `hub-bench-scale-${label}-`));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const hub = await startProcess(
    ['packages/server/dist/main.js'],
    {
      PORT: '0',
      HUB_DATA_DIR: dataDir,
      HUB_ADMIN_TOKEN: adminToken,
      HUB_LOG_LEVEL: 'warn',
      DATABASE_URL: /** @type {string} */ (database.url),
    },
    { cwd: root },
  );
  cleanups.push(hub.stop);
  const sql = postgres(/** @type {string} */ (database.url), { max: 2, onnotice: () => {} });
  cleanups.push(() => sql.end({ timeout: 5 }));
  const admin = { token: adminToken };
  await request(hub.url, 'POST', '/api/admin/v1/organizations', { ...admin, body: { slug: 'bench', name: 'Bench' } });
  await request(hub.url, 'POST', '/api/admin/v1/organizations/bench/projects', {
    ...admin,
    body: { slug: 'app', name: 'App' },
  });
  const key = await request(hub.url, 'POST', '/api/admin/v1/organizations/bench/api-keys', {
    ...admin,
    body: {
      name: 'bench',
      scopes: ['runs:dispatch', 'configuration:install', 'daemons:enroll', 'projects:read', 'runs:read'],
    },
  });
  const token = /** @type {string} */ (key.secret);
  const enrollment = await request(hub.url, 'POST', '/api/v1/daemons/enrollment-tokens', { token });
  const pair = generateKeyPairSync('ed25519');
  const enrolled = await request(hub.url, 'POST', '/api/v1/daemons/enroll', {
    body: {
      token: enrollment.token,
      name: 'load-box',
      publicKey: { kty: 'OKP', crv: 'Ed25519', x: pair.publicKey.export({ format: 'jwk' }).x },
      runtimes: [{ provider: 'claude' }],
    },
  });
  const beat = () => heartbeat(hub.url, enrolled.daemonId, pair.privateKey);
  await beat();
  const beating = setInterval(() => void beat().catch(() => {}), 5_000);
  cleanups.push(() => clearInterval(beating));
  await request(hub.url, 'POST', '/api/v1/configurations/install', {
    token,
    body: { projectSlug: 'app', yaml: CONFIGURATION },
  });
  await sql`insert into projects (organization_id, slug, name) select o.id, 'p-' || lpad(i::text, 5, '0'), 'Project ' || i from organizations o, generate_series(1, ${(PROJECTS.get(0) ?? 1) - 1}) i`;
  // Statistics on both hubs, as on the seeded one after each seeding: a plan that depends on them
  // (a projects page planned anew on every request once its table was analyzed) shows on both.
  await sql`vacuum analyze`;
  const target = { label, url: hub.url, sql, token, runId: '', replayBody: '' };
  await dispatchTheRun(target);
  return target;
}

/** @typedef {Awaited<ReturnType<typeof startHub>>} Target */

/** The run that replays and GET /runs/{id} use: dispatched once, through the API. @param {Target} target */
async function dispatchTheRun(target) {
  const deliveryKey = `replay-${randomBytes(6).toString('hex')}`;
  target.replayBody = dispatchBody(deliveryKey);
  await request(target.url, 'POST', '/api/manual-runs', { token: target.token, body: target.replayBody });
  const [run] = await target.sql`select id from trigger_runs where delivery_key = ${deliveryKey}`;
  check(run !== undefined, `the run of ${deliveryKey} is not in the database`);
  target.runId = run.id;
}

/** @param {string} deliveryKey */
const dispatchBody = (deliveryKey) =>
  JSON.stringify({
    projectSlug: 'app',
    trigger: 'load',
    actor: 'bench-bot',
    deliveryKey,
    input: 'please look at the flaky test',
  });

/** The empty hub as it started: its runs, audit events and old revisions deleted (and vacuumed), and the run to replay made again. @param {Target} target */
async function emptyAgain(target) {
  // DELETE, not TRUNCATE: its exclusive lock deadlocks with the hub's own reads (its sweeps). A
  // dispatch the load left in flight may still add a run meanwhile: then again, a moment later.
  for (let attempt = 1; ; attempt++) {
    try {
      await target.sql.begin(async (tx) => {
        await tx`delete from execution_output`;
        await tx`delete from executions`;
        await tx`delete from trigger_runs`;
        await tx`delete from audit_events`;
        await tx`delete from configuration_revisions where not active`;
      });
      break;
    } catch (error) {
      if (attempt === 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  await target.sql`vacuum analyze execution_output, executions, trigger_runs, audit_events, configuration_revisions`;
  await dispatchTheRun(target);
}

/**
 * History up to `size` runs and revisions, cloned from the template run and the active revision
 * by SQL, and PROJECTS.get(size) projects; then VACUUM ANALYZE, as autovacuum would have.
 * @param {Target} target
 * @param {number} from
 * @param {number} size
 */
async function seed(target, from, size) {
  const { sql } = target;
  const [template] =
    await sql`select r.id as run, e.id as execution from trigger_runs r join executions e on e.trigger_run_id = r.id where r.id = ${target.runId}`;
  for (let start = from + 1; start <= size; start += BATCH) {
    const end = Math.min(size, start + BATCH - 1);
    await sql`
      with runs as (
        insert into trigger_runs (organization_id, project_id, delivery_key, request_digest, trigger_name, configuration_revision_id,
          trigger_revision_id, trigger_id, actor, inputs, plan, max_runtime_ms, status, api_key_id, created_at, finished_at)
        select organization_id, project_id, 'seed-' || i, request_digest, trigger_name, configuration_revision_id, trigger_revision_id,
          trigger_id, actor, inputs, plan, max_runtime_ms, 'succeeded', api_key_id,
          now() - interval '30 days' + i * interval '1 second', now() - interval '30 days' + i * interval '1 second' + interval '1 minute'
        from trigger_runs t, generate_series(${start}::int, ${end}::int) i where t.id = ${template.run}
        returning id, created_at, finished_at
      ), seeded as (
        insert into executions (trigger_run_id, step_index, step_id, daemon_id, status, assignment, max_runtime_ms, offers, created_at, started_at, finished_at, exit_code)
        select runs.id, e.step_index, e.step_id, e.daemon_id, 'succeeded', e.assignment, e.max_runtime_ms, 1, runs.created_at, runs.created_at, runs.finished_at, 0
        from runs, executions e where e.id = ${template.execution}
        returning id, started_at
      )
      insert into execution_output (execution_id, seq, stream, at, text, bytes)
      select id, 0, 'stdout', started_at, 'All 1,204 tests passed.' || E'\\n', 24 from seeded`;
    await sql`
      with active as (select * from configuration_revisions where project_id = (select id from projects where slug = 'app') and active)
      insert into configuration_revisions (project_id, version, shape, yaml, partials, files, model, active, api_key_id, created_at)
      select project_id, version + i, shape, yaml, partials, files, model, false, api_key_id, now() - interval '30 days' + i * interval '1 second'
      from active, generate_series(${start}::int, ${end}::int) i`;
  }
  await sql`update projects set last_version = (select max(version) from configuration_revisions r where r.project_id = projects.id) where slug = 'app'`;
  const [{ projects }] = await sql`select count(*)::int as projects from projects`;
  await sql`insert into projects (organization_id, slug, name) select o.id, 'p-' || lpad(i::text, 5, '0'), 'Project ' || i from organizations o, generate_series(${projects}::int, ${(PROJECTS.get(size) ?? 1) - 1}::int) i`;
  await sql`vacuum analyze`;
}

/** The cursor of the page from the middle of the list (the slug before it, as the hub encodes cursors). @param {Target} target */
async function middleCursor(target) {
  const [{ slug }] =
    await target.sql`select slug from projects where active order by slug offset (select count(*) / 2 from projects where active) limit 1`;
  return Buffer.from(slug, 'utf8').toString('base64url');
}

/**
 * The measured requests, each a function of its target.
 * @type {[string, (target: Target) => Promise<object>, boolean][]} name, request, whether the target applies
 */
const MEASURES = [
  [
    'dispatch (new delivery key)',
    async (target) => {
      let sent = 0;
      const tag = randomBytes(4).toString('hex');
      return {
        method: 'POST',
        path: '/api/manual-runs',
        headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: dispatchBody(`load-${tag}-${++sent}`) }),
      };
    },
    true,
  ],
  [
    'replay (same delivery key)',
    async (target) => ({
      method: 'POST',
      path: '/api/manual-runs',
      headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
      body: target.replayBody,
    }),
    true,
  ],
  [
    'GET /api/v1/runs/{id}',
    async (target) => ({
      method: 'GET',
      path: `/api/v1/runs/${target.runId}`,
      headers: { authorization: `Bearer ${target.token}` },
    }),
    true,
  ],
  [
    'install (small configuration)',
    async (target) => ({
      method: 'POST',
      path: '/api/v1/configurations/install',
      headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ projectSlug: 'app', yaml: CONFIGURATION }),
    }),
    true,
  ],
  [
    'projects list, one page from the middle',
    async (target) => ({
      method: 'GET',
      path: `/api/v1/projects?limit=${PAGE}&cursor=${await middleCursor(target)}`,
      headers: { authorization: `Bearer ${target.token}` },
    }),
    true,
  ],
  [
    'projects list, plain (whole)',
    async (target) => ({
      method: 'GET',
      path: '/api/v1/projects',
      headers: { authorization: `Bearer ${target.token}` },
    }),
    false,
  ],
];

try {
  const empty = await startHub('empty');
  const history = await startHub('history');
  console.log(
    `Scale benchmark: ${CONNECTIONS} connections, ${DURATION_S} s each after ${WARMUP_S} s of warm-up, loopback, node ${process.version}, two hubs on the machine's PostgreSQL`,
  );
  /** @type {{ size: number, seedS: number, rows: { name: string, target: boolean, ratio: number, empty: { rps: number, p50: number }, history: { rps: number, p50: number }, non2xx: number }[] }[]} */
  const results = [];
  let seeded = 0;
  for (const size of SIZES) {
    const seedStart = performance.now();
    await seed(history, seeded, size);
    seeded = size;
    const seedS = (performance.now() - seedStart) / 1000;
    const rows = [];
    for (const [name, specOf, target] of MEASURES) {
      /** @type {{ rps: number, p50: number, non2xx: number }[]} */
      const onEmpty = [];
      /** @type {{ rps: number, p50: number, non2xx: number }[]} */
      const onHistory = [];
      // PAIRS pairs, each measured back to back, in alternating order (empty first, then history
      // first, …): the slowdown is the median of the pairs' ratios, so that a burst of the
      // machine's other work spoils one pair, not the figure.
      for (let pair = 0; pair < PAIRS; pair++) {
        for (const who of pair % 2 === 0 ? [empty, history] : [history, empty]) {
          if (who === empty) await emptyAgain(empty);
          const figures = await load(who.url, await specOf(who));
          (who === empty ? onEmpty : onHistory).push(figures);
        }
      }
      const ratios = onEmpty
        .map((figures, pair) => figures.rps / (onHistory[pair]?.rps ?? Number.NaN))
        .sort((a, b) => a - b);
      const median = (/** @type {number[]} */ values) => values[Math.floor(values.length / 2)] ?? Number.NaN;
      const typical = (/** @type {{ rps: number, p50: number }[]} */ list) => ({
        rps: median(list.map((f) => f.rps).sort((a, b) => a - b)),
        p50: median(list.map((f) => f.p50).sort((a, b) => a - b)),
      });
      rows.push({
        name,
        target,
        ratio: median(ratios),
        empty: typical(onEmpty),
        history: typical(onHistory),
        non2xx: [...onEmpty, ...onHistory].reduce((sum, figures) => sum + figures.non2xx, 0),
      });
    }
    results.push({ size, seedS, rows });
    const [{ runs }] = await history.sql`select count(*)::int as runs from trigger_runs`;
    const [{ revisions }] = await history.sql`select count(*)::int as revisions from configuration_revisions`;
    const [{ bytes }] = await history.sql`select pg_database_size(current_database())::bigint as bytes`;
    console.log('');
    console.log(
      `history of ${size.toLocaleString('en')} runs and revisions (seeded in ${seedS.toFixed(0)} s; now ${runs.toLocaleString('en')} runs, ${revisions.toLocaleString('en')} revisions, ${(Number(bytes) / 1e6).toFixed(0)} MB), ${PROJECTS.get(size)?.toLocaleString('en')} projects; empty hub: ${PROJECTS.get(0)} projects`,
    );
    console.log(
      table(
        [
          ['request', 'empty req/s', 'p50 ms', 'history req/s', 'p50 ms', 'empty ÷ history (median)', 'non-2xx'],
          ...rows.map((row) => {
            const { ratio } = row;
            return [
              row.name,
              row.empty.rps.toFixed(0),
              row.empty.p50.toFixed(1),
              row.history.rps.toFixed(0),
              row.history.p50.toFixed(1),
              `${ratio.toFixed(2)}x ${row.target ? (ratio <= TARGET ? 'met' : 'MISSED') : '(full listing, no target)'}`,
              row.non2xx,
            ];
          }),
        ],
        ['l', 'r', 'r', 'r', 'r', 'l', 'r'],
      ),
    );
  }
  console.log('');
  console.log(
    `Slowdown with history (empty req/s ÷ history req/s, median of ${PAIRS} pairs measured back to back; target <= ${TARGET}x for all but the full listing):`,
  );
  const [first] = results;
  for (const [index, { name }] of (first?.rows ?? []).entries()) {
    const ratios = results.map(({ size, rows }) => {
      const row = rows[index];
      const ratio = row === undefined ? Number.NaN : row.ratio;
      return `${(size / 1000).toFixed(0)}k ${ratio.toFixed(2)}x${row?.target ? (ratio <= TARGET ? '' : ' MISSED') : ''}`;
    });
    console.log(`  ${name.padEnd(40)} ${ratios.join('   ')}`);
  }
  console.log(
    `(load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}; ${((performance.now() - startedAt) / 1000).toFixed(0)} s)`,
  );
} catch (error) {
  if (interrupted()) await new Promise(() => {}); // the SIGINT handler cleans up and exits
  console.error(error);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
