// @ts-check
/**
 * Part of `pnpm bench:scale`: the sweeps and retention at 0, 20k and 200k stored runs (each with
 * an execution and two output chunks; a tenth as many revisions and waiting executions): the
 * timed-out sweep, the lost sweep of an offline daemon with 25k queued executions (in all, and
 * its longest batch), and a retention pass with a fixed amount to prune. Prints each against the
 * empty database's (target 1.3x), and the statements they replaced, timed on the same rows.
 * Straight on the repositories (packages/server/dist) and the machine's PostgreSQL, whose
 * statistics are taken on the empty tables, as with autovacuum off. See bench/README.md.
 */
import { performance } from 'node:perf_hooks';
import { createDatabase, postgres } from './database.js';
import { check, cleanupOnExit, table } from './report.js';

const { migrate } = await import('../packages/server/dist/db/migrate.js');
const { ExecutionRepository, SWEEP_BATCH } = await import('../packages/server/dist/runs/executions.js');
const { RetentionRepository } = await import('../packages/server/dist/retention/policy.js');

const SIZES = (process.env.HUB_BENCH_SIZES ?? '0,20000,200000').split(',').map(Number);
const QUEUED = Number(process.env.HUB_BENCH_QUEUED || 25_000);
const TARGET = 1.3;
/** Repetitions per size: the median is reported. */
const REPS = 5;
const LOST_REPS = 2;
/** Past max_runtime, per timed-out sweep; running and not late, throughout. */
const LATE = 100;
const RUNNING = 1_000;
/** Past retention, per retention pass: runs (with an execution and two chunks each), and revisions. */
const EXPIRED_RUNS = 1_000;
const EXPIRED_REVISIONS = 100;
const TIMING = { offlineAfterMs: 30_000, redeliverAfterMs: 30_000, timeoutGraceMs: 30_000 };

const { cleanups, cleanUp, interrupted } = cleanupOnExit([]);
const database = await createDatabase(cleanups);
check(database.url !== undefined, `the machine's PostgreSQL is needed: ${database.note}`);
const sql = postgres(database.url, { max: 4, onnotice: () => {} });
cleanups.push(() => sql.end({ timeout: 5 }));

try {
  await main();
} finally {
  if (!interrupted()) await cleanUp();
}

async function main() {
  console.log(`bench:scale sweeps: ${database.note}`);
  await migrate(sql);
  // As on a PostgreSQL whose autovacuum is off: statistics of empty tables, then the load.
  await sql`analyze`;
  const ids = await seedBase();
  const executions = new ExecutionRepository(sql, TIMING);
  const retention = new RetentionRepository(sql, { runsDays: 90, revisionsDays: 90, revisionsKept: 10 });

  /** @type {Record<string, Record<number, number>>} */
  const results = {};
  const record = (/** @type {string} */ name, /** @type {number} */ size, /** @type {number} */ ms) =>
    ((results[name] ??= {})[size] = ms);
  let stored = 0;
  let rep = 0;
  for (const size of SIZES) {
    const began = performance.now();
    await seedHistory(ids, stored, size);
    stored = Math.max(stored, size);
    // Unmeasured: as every sweep does for the entries whose deadline it has just passed, the
    // first one marks the seeded history's dead index entries.
    await executions.sweepTimedOut();
    const counts =
      await sql`select (select count(*) from trigger_runs)::int as runs, (select count(*) from executions)::int as executions,
      (select count(*) from configuration_revisions)::int as revisions`;
    console.log(
      `\n${size} stored: ${JSON.stringify(counts[0])} (seeded in ${Math.round(performance.now() - began)} ms)`,
    );

    const timedOut = [];
    const before = [];
    const idle = [];
    for (let i = 0; i < REPS; i++) {
      await seedLate(ids, rep++);
      const t0 = performance.now();
      const count = await executions.sweepTimedOut();
      timedOut.push(performance.now() - t0);
      check(count === LATE, `the timed-out sweep ended ${count} runs, not ${LATE}`);
      const t1 = performance.now();
      await executions.sweepTimedOut();
      idle.push(performance.now() - t1);
      await seedLate(ids, rep++);
      before.push(await timed(() => OLD_TIMED_OUT(sql)));
    }
    record('timed-out sweep, 100 late', size, median(timedOut));
    record('timed-out sweep, none late', size, median(idle));
    record('  before: old statement, 100 late', size, median(before));

    const totals = [];
    const longest = [];
    for (let i = 0; i < LOST_REPS; i++) {
      await seedQueued(ids, rep++);
      const batches = [];
      let lost = 0;
      for (;;) {
        const t0 = performance.now();
        const batch = await executions.sweepLostBatch();
        batches.push(performance.now() - t0);
        lost += batch.executions;
        if (batch.executions < SWEEP_BATCH) break;
      }
      check(lost === QUEUED, `the lost sweep took ${lost} executions, not ${QUEUED}`);
      totals.push(batches.reduce((a, b) => a + b, 0));
      longest.push(Math.max(...batches));
      await forgetQueued();
    }
    await seedQueued(ids, rep++);
    const oldLost = await timed(() => OLD_LOST(sql));
    await forgetQueued();
    record(`lost sweep, ${QUEUED} queued: all`, size, median(totals));
    record(`lost sweep: longest batch (${SWEEP_BATCH})`, size, median(longest));
    record('  before: one statement', size, oldLost);

    const passes = [];
    for (let i = 0; i < REPS; i++) {
      await seedExpired(ids, rep++);
      const t0 = performance.now();
      const pruned = await retention.prune();
      passes.push(performance.now() - t0);
      check(
        pruned.runs === EXPIRED_RUNS && pruned.configurationRevisions === EXPIRED_REVISIONS,
        `the retention pass pruned ${JSON.stringify(pruned)}`,
      );
    }
    record(`retention pass (${EXPIRED_RUNS} runs, ${EXPIRED_REVISIONS} revisions)`, size, median(passes));
  }

  await printPlans();
  const [first] = SIZES;
  const rows = [['ms (median)', ...SIZES.map((size) => `${size / 1000}k`), 'large/empty', `target ${TARGET}x`]];
  for (const [name, bySize] of Object.entries(results)) {
    const ratio = (bySize[SIZES.at(-1) ?? 0] ?? 0) / (bySize[first ?? 0] ?? 1);
    const informational = name.startsWith('  before');
    rows.push([
      name,
      ...SIZES.map((size) => (bySize[size] ?? 0).toFixed(1)),
      `${ratio.toFixed(2)}x`,
      informational ? '' : ratio <= TARGET ? 'ok' : 'MISSED',
    ]);
  }
  console.log(`\n${table(rows, ['l', ...SIZES.map(() => /** @type {'r'} */ ('r')), 'r', 'l'])}`);
  const [load] = await import('node:os').then((os) => os.loadavg());
  console.log(`\nload average (1 min) at the end: ${load?.toFixed(2)}`);
}

/** @param {() => Promise<unknown>} run */
async function timed(run) {
  const t0 = performance.now();
  await run();
  return performance.now() - t0;
}

/** @param {number[]} values */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}

/** The statements before issue 15, for comparison on the same rows. @param {any} sql */
function OLD_TIMED_OUT(sql) {
  const grace = TIMING.timeoutGraceMs;
  return sql`
    with late as (
      update executions e set status = 'timed_out', finished_at = now(), message = 'old'
      where e.status = 'running' and e.started_at + (e.max_runtime_ms + ${grace}) * interval '1 millisecond' <= now()
      returning e.trigger_run_id
    ), late_runs as (
      update trigger_runs r set status = 'timed_out', finished_at = now()
      where r.status = 'running' and (r.id in (select trigger_run_id from late)
        or r.created_at + (r.max_runtime_ms + ${grace}) * interval '1 millisecond' <= now())
      returning r.id
    ), stopped as (
      update executions e set status = 'timed_out', finished_at = now(), message = 'old'
      where e.trigger_run_id in (select id from late_runs) and e.status in ('spawning', 'running')
        and e.trigger_run_id not in (select trigger_run_id from late)
      returning 1
    )
    select id from late_runs`;
}

/** @param {any} sql */
function OLD_LOST(sql) {
  return sql`
    with lost as (
      update executions e set status = 'lost', finished_at = now(), message = 'old'
      from daemons d
      where d.id = e.daemon_id and e.status in ('spawning', 'running')
        and coalesce(d.last_seen_at, '-infinity') <= now() - ${TIMING.offlineAfterMs} * interval '1 millisecond'
      returning e.trigger_run_id)
    update trigger_runs set status = 'failed', finished_at = now()
    where id in (select trigger_run_id from lost) and status = 'running'
    returning id`;
}

/** An organization, a key, a daemon online for the whole bench, a project with its active revision. */
async function seedBase() {
  const [org] = await sql`insert into organizations (slug, name) values ('bench', 'Bench') returning id`;
  const [key] = await sql`insert into api_keys (organization_id, name, prefix, digest, scopes)
    values (${org.id}, 'bench', 'hub_pk_bench0000', '\\x00', '{runs:dispatch}') returning id`;
  const daemon = async (/** @type {string} */ name, /** @type {boolean} */ online) => {
    const [token] = await sql`insert into enrollment_tokens (organization_id, api_key_id, digest, expires_at)
      values (${org.id}, ${key.id}, ${Buffer.from(name)}, now() + interval '1 day') returning id`;
    const [row] =
      await sql`insert into daemons (organization_id, name, public_key, runtimes, enrollment_token_id, last_seen_at)
      values (${org.id}, ${name}, '{}', '[]', ${token.id}, ${online ? sql`now() + interval '1 day'` : null}) returning id`;
    return row.id;
  };
  const busy = await daemon('busy', true);
  const [project] =
    await sql`insert into projects (organization_id, slug, name, last_version) values (${org.id}, 'bench', 'Bench', 1) returning id`;
  const [revision] =
    await sql`insert into configuration_revisions (project_id, version, shape, yaml, model, active, api_key_id)
    values (${project.id}, 1, 'configuration', 'triggers: []', '{}', true, ${key.id}) returning id`;
  // Projects whose histories hold the stored revisions, each with its active revision.
  await sql`insert into projects (organization_id, slug, name, last_version) select ${org.id}, 'history-' || g, 'History', 1 from generate_series(1, 100) g`;
  await sql`insert into configuration_revisions (project_id, version, shape, yaml, model, active, api_key_id)
    select id, 1, 'configuration', 'triggers: []', '{}', true, ${key.id} from projects where slug like 'history-%'`;
  await seedRuns({ org: org.id, key: key.id, project: project.id, revision: revision.id, busy }, 'running', RUNNING, {
    status: 'running',
    created: sql`now()`,
    finished: null,
    executionStatus: 'running',
    started: sql`now()`,
    daemon: busy,
  });
  return { org: org.id, key: key.id, project: project.id, revision: revision.id, busy };
}

/**
 * `count` runs (delivery keys `<prefix>-<n>`), each with one execution in `options.executionStatus`
 * on `options.daemon`, and, when finished, two output chunks.
 * @param {any} ids @param {string} prefix @param {number} count @param {any} options
 */
async function seedRuns(ids, prefix, count, options) {
  if (count <= 0) return;
  await sql`
    with runs as (
      insert into trigger_runs (organization_id, project_id, delivery_key, request_digest, trigger_name, configuration_revision_id, trigger_id,
        actor, inputs, plan, max_runtime_ms, status, api_key_id, created_at, finished_at)
      select ${ids.org}, ${ids.project}, ${prefix} || '-' || g, '\\x00', 'go', ${ids.revision}, ${ids.project}, 'bench', '{}',
        '[{"id":"go","daemon":"busy","cwd":"/tmp","agent":{"provider":"claude"},"prompt":"Go.","maxRuntimeMs":3600000,"idleTimeoutMs":null}]',
        3600000, ${options.status}, ${ids.key}, ${options.created}, ${options.finished}
      from generate_series(1, ${count}) g
      returning id, created_at, finished_at
    ), executions as (
      insert into executions (trigger_run_id, step_index, step_id, daemon_id, status, assignment, max_runtime_ms, created_at, started_at, finished_at, offered_at, offers)
      select id, 0, 'go', ${options.daemon}, ${options.executionStatus}, '{"executionId":"x","prompt":"Go."}', 3600000, created_at,
        ${options.started}, finished_at, ${options.executionStatus === 'spawning' ? null : sql`created_at`}, ${options.executionStatus === 'spawning' ? 0 : 1}
      from runs
      returning id, finished_at
    )
    insert into execution_output (execution_id, seq, stream, at, text, bytes)
    select e.id, s, 'stdout', e.finished_at, 'A line of output from the agent, as the daemon sent it.', 55
    from executions e, generate_series(0, 1) s where e.finished_at is not null`;
}

/**
 * Grows the history from `from` to `to` runs, finished an hour ago, a tenth as many waiting
 * executions and revisions. Each execution is stored running, then finished, as a daemon's would
 * be: its entries in the indexes of running rows stay there, dead, with autovacuum off.
 * @param {any} ids @param {number} from @param {number} to
 */
async function seedHistory(ids, from, to) {
  const more = to - from;
  if (more <= 0) return;
  for (let done = 0; done < more; done += 50_000) {
    const count = Math.min(50_000, more - done);
    const prefix = `history-${from + done}`;
    await seedRuns(ids, prefix, count, {
      status: 'running',
      created: sql`now() - interval '2 hours'`,
      finished: null,
      executionStatus: 'running',
      started: sql`now() - interval '2 hours'`,
      daemon: ids.busy,
    });
    await sql`
      with runs as (
        update trigger_runs set status = 'succeeded', finished_at = now() - interval '1 hour'
        where delivery_key like ${`${prefix}-%`} returning id, finished_at
      ), executions as (
        update executions e set status = 'succeeded', finished_at = runs.finished_at from runs where e.trigger_run_id = runs.id
        returning e.id, e.finished_at
      )
      insert into execution_output (execution_id, seq, stream, at, text, bytes)
      select e.id, s, 'stdout', e.finished_at, 'A line of output from the agent, as the daemon sent it.', 55
      from executions e, generate_series(0, 1) s`;
  }
  await seedRuns(ids, `waiting-${from}`, Math.floor(more / 10), {
    status: 'running',
    created: sql`now()`,
    finished: null,
    executionStatus: 'spawning',
    started: null,
    daemon: ids.busy,
  });
  // Recent inactive revisions, spread over the history projects (versions after each one's last).
  await sql`
    with added as (
      select p.id, p.last_version + v as version from projects p, generate_series(1, ${Math.floor(more / 10 / 100)}) v where p.slug like 'history-%'
    ), revisions as (
      insert into configuration_revisions (project_id, version, shape, yaml, model, active, api_key_id, created_at)
      select id, version, 'configuration', 'triggers: []', '{"triggers":[]}', false, ${ids.key}, now() - interval '1 day' from added
      returning project_id, version
    )
    update projects p set last_version = m.version from (select project_id, max(version) as version from revisions group by project_id) m where p.id = m.project_id`;
}

/** LATE runs, each with its execution running, both past max_runtime and the grace. @param {any} ids @param {number} rep */
async function seedLate(ids, rep) {
  await seedRuns(ids, `late-${rep}`, LATE, {
    status: 'running',
    created: sql`now() - interval '2 hours'`,
    finished: null,
    executionStatus: 'running',
    started: sql`now() - interval '2 hours'`,
    daemon: ids.busy,
  });
}

/**
 * QUEUED runs waiting on a daemon of their own that is offline: each lost sweep's daemon starts
 * with index entries of its own only, as a daemon's history is its own.
 * @param {any} ids @param {number} rep
 */
async function seedQueued(ids, rep) {
  const name = `gone-${rep}`;
  const [token] = await sql`insert into enrollment_tokens (organization_id, api_key_id, digest, expires_at)
    values (${ids.org}, ${ids.key}, ${Buffer.from(name)}, now() + interval '1 day') returning id`;
  const [daemon] =
    await sql`insert into daemons (organization_id, name, public_key, runtimes, enrollment_token_id, last_seen_at)
    values (${ids.org}, ${name}, '{}', '[]', ${token.id}, null) returning id`;
  await seedRuns(ids, `queued-${rep}`, QUEUED, {
    status: 'running',
    created: sql`now()`,
    finished: null,
    executionStatus: 'spawning',
    started: null,
    daemon: daemon.id,
  });
}

/** The lost runs go, so that each size's history is what it says. */
async function forgetQueued() {
  await sql`delete from executions where trigger_run_id in (select id from trigger_runs where delivery_key like 'queued-%')`;
  await sql`delete from trigger_runs where delivery_key like 'queued-%'`;
}

/** EXPIRED_RUNS runs finished 100 days ago, and a project with EXPIRED_REVISIONS revisions past retention (plus the 10 kept). @param {any} ids @param {number} rep */
async function seedExpired(ids, rep) {
  await seedRuns(ids, `expired-${rep}`, EXPIRED_RUNS, {
    status: 'succeeded',
    created: sql`now() - interval '100 days'`,
    finished: sql`now() - interval '100 days'`,
    executionStatus: 'succeeded',
    started: sql`now() - interval '100 days'`,
    daemon: ids.busy,
  });
  // Versions 1..109 inactive, 110 active: the newest ten are kept, the hundred before them go.
  const versions = EXPIRED_REVISIONS + 9;
  const [project] =
    await sql`insert into projects (organization_id, slug, name, last_version) values (${ids.org}, ${`expired-${rep}`}, 'Expired', ${versions + 1}) returning id`;
  await sql`insert into configuration_revisions (project_id, version, shape, yaml, model, active, api_key_id, created_at)
    select ${project.id}, v, 'configuration', 'triggers: []', '{}', v = ${versions + 1}, ${ids.key},
      case when v = ${versions + 1} then now() else now() - interval '100 days' end
    from generate_series(1, ${versions + 1}) v`;
}

/** The sweeps' and retention's look-ups, explained as they run (their planner settings included): each should read its index. */
async function printPlans() {
  const grace = TIMING.timeoutGraceMs;
  const sweep = ['set local enable_bitmapscan = off'];
  const retention = [...sweep, 'set local enable_seqscan = off'];
  /** @type {[string, string[], string][]} */
  const plans = [
    [
      'timed-out executions',
      sweep,
      `select id from executions where status = 'running' and hub_deadline(started_at, max_runtime_ms) <= now() - ${grace} * interval '1 millisecond'
      order by hub_deadline(started_at, max_runtime_ms) limit ${SWEEP_BATCH} for update skip locked`,
    ],
    [
      'timed-out runs',
      sweep,
      `select id from trigger_runs where status = 'running' and hub_deadline(created_at, max_runtime_ms) <= now() - ${grace} * interval '1 millisecond'
      order by hub_deadline(created_at, max_runtime_ms) limit ${SWEEP_BATCH} for update skip locked`,
    ],
    [
      'lost batch',
      sweep,
      `select e.id from daemons d cross join lateral (select e.id from executions e where e.daemon_id = d.id and e.status in ('spawning', 'running')
      limit ${SWEEP_BATCH} for update skip locked) e where coalesce(d.last_seen_at, '-infinity') <= now() - ${TIMING.offlineAfterMs} * interval '1 millisecond' limit ${SWEEP_BATCH}`,
    ],
    [
      'retention runs',
      retention,
      `select r.id from trigger_runs r where r.finished_at < now() - 90 * interval '1 day' and r.status <> 'running'
      and not exists (select 1 from executions e where e.trigger_run_id = r.id and e.status in ('spawning', 'running')) order by r.finished_at limit 200 for update of r skip locked`,
    ],
    [
      'retention revisions',
      retention,
      `select r.id from configuration_revisions r join projects o on o.id = r.project_id
      where not r.active and r.created_at < now() - 90 * interval '1 day' order by r.created_at, r.id limit 200`,
    ],
  ];
  console.log('\nplans (statistics of the empty tables):');
  for (const [name, settings, query] of plans) {
    const lines = await sql.begin(async (tx) => {
      for (const setting of settings) await tx.unsafe(setting);
      return (await tx.unsafe(`explain ${query}`)).map((/** @type {any} */ row) => String(row['QUERY PLAN']));
    });
    const reads = lines
      .filter((line) => /Scan/.test(line))
      .map((line) => line.replace(/\s*\(cost.*$/, '').replace(/^[\s>-]*/, ''));
    console.log(`  ${name}: ${reads.join('; ')}`);
  }
}
