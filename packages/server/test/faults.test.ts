// Database faults (issue 14): two hub instances on a PostgreSQL cluster of the test's own, under a
// light steady load of installs, validates, dispatches and a daemon's long-polls; PostgreSQL is
// stopped for 10 s (fast, then immediate) and started again, then one hub is killed mid-install.
//
// The bounds asserted are the (docs/decisions.md, Database faults): no 500 ever; no
// request longer than CEILING_MS (a hang is a failure, not slowness: the bound is generous); 503
// database_unavailable with Retry-After while PostgreSQL is down; a success within RECOVERY_MS of
// PostgreSQL accepting connections again; every acknowledged install and dispatch stored, the
// versions of each project without gaps.
import { setTimeout as sleep } from 'node:timers/promises';
import postgres, { type Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, setUp } from './support/client.js';
import { postgresBinaries, startCluster, type Cluster } from './support/cluster.js';
import { TestDaemon } from './support/daemon.js';
import { startHub, type RunningHub } from './support/hub.js';

/** The longest any single request may take, outage or not (long-polls and streams: from the stop). */
const CEILING_MS = 5_000;
/** The first success after PostgreSQL accepts connections again comes within this. */
const RECOVERY_MS = 2_000;
const OUTAGE_MS = 10_000;

const bin = postgresBinaries();

const DISPATCH_CONFIGURATION = `
environments:
  - { name: box, kind: daemon, daemon: fault-box, cwd: /tmp/work }
triggers:
  - name: go
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [tester] }
    steps:
      - { id: run, environment: box, agent: { provider: claude }, prompt: [ { text: "go {{ prompt }}" } ] }
`;

/** A small configuration, different each time (a comment), so each install is a new revision of its own. */
const small = (n: number) => `# install ${n}\n${DISPATCH_CONFIGURATION}`;

/** A configuration of about `bytes` (850 KB in the measurement): many triggers, one environment. */
function large(bytes: number): string {
  const head = 'environments:\n  - { name: box, kind: daemon, daemon: fault-box, cwd: /tmp/work }\ntriggers:\n';
  const parts = [head];
  let size = head.length;
  for (let i = 0; size < bytes; i++) {
    const trigger = [
      `  - name: trigger-${i}`,
      '    on: { manual.run: { inputs: { branch: { description: Branch, required: false, default: main } } } }',
      '    max_runtime: 1h',
      '    filters: { from_users: [tester] }',
      '    steps:',
      `      - { id: step, environment: box, agent: { provider: claude }, prompt: [ { text: "Work on {{ inputs.branch }} for trigger ${i}. {{ prompt }}" } ] }`,
      '',
    ].join('\n');
    parts.push(trigger);
    size += trigger.length;
  }
  return parts.join('');
}

interface Sample {
  client: string;
  hub: 'A' | 'B';
  path: string;
  start: number;
  end: number;
  /** 0: no answer (the connection failed). */
  status: number;
  code?: string | undefined;
  retryAfter: string | null;
  error?: string;
}

interface Outage {
  mode: 'fast' | 'immediate';
  /** `pg_ctl stop` issued. */
  stopIssued: number;
  /** PostgreSQL has exited. */
  stopped: number;
  /** `pg_ctl start` issued. */
  startIssued: number;
  /** A new connection gets an answer again (pg_isready's "accepting connections"). */
  ready: number;
}

describe.skipIf(bin === undefined)(
  `database faults${bin === undefined ? ' (skipped: no PostgreSQL binaries, initdb and pg_ctl, on this machine; set HUB_TEST_PG_BIN)' : ''}`,
  () => {
    let cluster: Cluster;
    let hubs: { A: RunningHub; B: RunningHub };
    let sql: Sql;
    let ctx: Awaited<ReturnType<typeof setUp>>;
    let daemon: TestDaemon;
    let idle: TestDaemon;
    let streamedExecution: string;
    const samples: Sample[] = [];
    const installs: { project: string; version: number; versionId: string }[] = [];
    const dispatches: { triggerRunId: string; deliveryKey: string }[] = [];

    beforeAll(async () => {
      cluster = await startCluster(bin as string);
      const env = { HUB_SWEEP_EVERY_MS: '200' };
      const [A, B] = await Promise.all([
        startHub({ databaseUrl: cluster.url, env }),
        startHub({ databaseUrl: cluster.url, env }),
      ]);
      hubs = { A, B };
      sql = postgres(cluster.url, { max: 2, onnotice: () => {} });
      ctx = await setUp(A);
      for (const slug of ['first', 'second', 'killed']) {
        const created = await call(A, 'POST', `/api/admin/v1/organizations/${ctx.org}/projects`, {
          token: A.adminToken,
          body: { slug, name: slug },
        });
        expect(created.status, created.text).toBe(201);
      }
      daemon = await TestDaemon.enroll(A, ctx.key, 'fault-box');
      idle = await TestDaemon.enroll(A, ctx.key, 'idle-box');
      const installed = await call(A, 'POST', '/api/v1/configurations/install', {
        token: ctx.key,
        body: { projectSlug: ctx.project, yaml: DISPATCH_CONFIGURATION },
      });
      expect(installed.status, installed.text).toBe(201);
      installs.push({ project: ctx.project, version: installed.body.version, versionId: installed.body.versionId });
      expect((await daemon.heartbeat()).status).toBe(200);
      // A run whose execution stays open: its output is followed live across the outages.
      const run = await call(B, 'POST', '/api/v1/manual-runs', {
        token: ctx.key,
        body: { projectSlug: ctx.project, trigger: 'go', actor: 'tester', deliveryKey: 'streamed' },
      });
      expect(run.status, run.text).toBe(200);
      dispatches.push({ triggerRunId: run.body.triggerRunId, deliveryKey: 'streamed' });
      const view = await call(A, 'GET', `/api/v1/runs/${run.body.triggerRunId}`, { token: ctx.key });
      streamedExecution = view.body.executions[0].executionId;
    }, 120_000);

    afterAll(async () => {
      await Promise.all([hubs?.A.stop(), hubs?.B.stop()]);
      await sql?.end();
      await cluster?.destroy();
    });

    /** One request, timed and recorded; a 503 is waited out as its Retry-After says. */
    async function request(
      client: string,
      hub: 'A' | 'B',
      method: string,
      path: string,
      options: { body?: unknown; headers?: Record<string, string>; token?: string; honorRetryAfter?: boolean } = {},
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON from the wire
    ): Promise<Sample & { body: any }> {
      const start = Date.now();
      const base = { client, hub, path, start };
      try {
        const answer = await call(hubs[hub], method, path, {
          token: options.token ?? ctx.key,
          body: options.body,
          headers: options.headers,
        });
        const sample = {
          ...base,
          end: Date.now(),
          status: answer.status,
          code: answer.body?.code as string | undefined,
          retryAfter: answer.headers.get('retry-after'),
        };
        samples.push(sample);
        if (answer.status === 503 && options.honorRetryAfter !== false)
          await sleep(Number(sample.retryAfter ?? '1') * 1_000);
        return { ...sample, body: answer.body };
      } catch (error) {
        const sample = { ...base, end: Date.now(), status: 0, retryAfter: null, error: String(error) };
        samples.push(sample);
        return { ...sample, body: undefined };
      }
    }

    /** Runs `step` over and over, on hub A and B in turn, until `until` resolves. */
    async function loop(until: Promise<unknown>, step: (hub: 'A' | 'B', n: number) => Promise<unknown>): Promise<void> {
      let done = false;
      void until.then(() => (done = true));
      for (let n = 0; !done; n++) await step(n % 2 === 0 ? 'A' : 'B', n);
    }

    it('answers 503 with Retry-After while PostgreSQL is stopped (fast, then immediate), never 500 nor past the ceiling, and stores everything it acknowledged', async () => {
      let finish!: () => void;
      const finished = new Promise<void>((resolve) => (finish = resolve));
      const installer = (project: string) => async (hub: 'A' | 'B', n: number) => {
        const answer = await request(`install ${project}`, hub, 'POST', '/api/v1/configurations/install', {
          body: { projectSlug: project, yaml: small(n) },
        });
        if (answer.status === 201)
          installs.push({ project, version: answer.body.version, versionId: answer.body.versionId });
      };
      let deliveries = 0;
      let pendingKey: string | undefined;
      const dispatcher = async (hub: 'A' | 'B') => {
        // A dispatch that got no answer is sent again with the same key: it runs once, whatever happened.
        const deliveryKey = (pendingKey ??= `fault-${++deliveries}`);
        const answer = await request('dispatch', hub, 'POST', '/api/v1/manual-runs', {
          body: { projectSlug: ctx.project, trigger: 'go', actor: 'tester', deliveryKey },
        });
        if (answer.status === 200) {
          dispatches.push({ triggerRunId: answer.body.triggerRunId, deliveryKey });
          pendingKey = undefined;
        }
      };
      const validator = async (hub: 'A' | 'B', n: number) => {
        await request('validate', hub, 'POST', '/api/v1/configurations/validate', {
          body: { projectSlug: 'first', yaml: small(n) },
        });
      };
      // The daemon: heartbeats, and takes what is dispatched to it (long-polls of up to 5 s).
      const signed = async (
        client: string,
        who: TestDaemon,
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON from the wire
        send: () => Promise<{ status: number; headers: Headers; body: any }>,
      ) => {
        const start = Date.now();
        try {
          const answer = await send();
          const sample = {
            client,
            hub: 'A' as const,
            path: client,
            start,
            end: Date.now(),
            status: answer.status,
            code: answer.body?.code as string | undefined,
            retryAfter: answer.headers.get('retry-after'),
          };
          samples.push(sample);
          if (answer.status === 503) await sleep(Number(sample.retryAfter ?? '1') * 1_000);
          return sample;
        } catch (error) {
          const sample = {
            client,
            hub: 'A' as const,
            path: client,
            start,
            end: Date.now(),
            status: 0,
            retryAfter: null,
            error: String(error),
          };
          samples.push(sample);
          return sample;
        }
      };
      // The recovery probes: a read on each hub every 100 ms; liveness, which never needs the
      // database; readiness, which says whether it answers; a dashboard page (a session cookie that
      // is no session: the sign-in redirect, or the 503 page).
      const cookie = `hub_session=${'x'.repeat(43)}`;
      const probe = (hub: 'A' | 'B') => async () => {
        await request(`probe ${hub}`, hub, 'GET', '/api/v1/projects', { honorRetryAfter: false });
        await request(`live ${hub}`, hub, 'GET', '/healthz', { honorRetryAfter: false });
        await request(`ready ${hub}`, hub, 'GET', '/readyz', { honorRetryAfter: false });
        await request(`page ${hub}`, hub, 'GET', '/projects', { honorRetryAfter: false, headers: { cookie } });
        await sleep(100);
      };

      const load = [
        loop(finished, installer('first')),
        loop(finished, installer('second')),
        loop(finished, dispatcher),
        loop(finished, validator),
        loop(finished, () => signed('heartbeat', daemon, () => daemon.heartbeat()).then(() => sleep(500))),
        loop(finished, () => signed('long-poll', daemon, () => daemon.next(5))),
        loop(finished, probe('A')),
        loop(finished, probe('B')),
      ];

      const outages: Outage[] = [];
      const ended: { what: string; outage: number; end: number; status?: number }[] = [];
      const waiters: Promise<unknown>[] = [];
      const relistened: number[] = [];
      try {
        await sleep(2_000);
        for (const mode of ['fast', 'immediate'] as const) {
          // Waiting when PostgreSQL stops: the idle daemon's long-poll (20 s), once the hub has taken it
          // (its nonce is stored), and a live output stream, once it has begun.
          const index = outages.length;
          const nonces = await nonceCount(idle.id);
          const poll = signed('idle long-poll', idle, () => idle.next(20)).then((sample) =>
            ended.push({ what: 'long-poll', outage: index, end: sample.end, status: sample.status }),
          );
          while ((await nonceCount(idle.id)) === nonces) await sleep(20);
          const stream = (await follow(hubs.B, streamedExecution, ctx.key)).ended.then((end) =>
            ended.push({ what: 'stream', outage: index, end }),
          );
          const stopIssued = Date.now();
          await cluster.stop(mode);
          const stopped = Date.now();
          await sleep(Math.max(0, stopIssued + OUTAGE_MS - Date.now()));
          const startIssued = Date.now();
          const [ready] = await Promise.all([cluster.accepting(), cluster.start()]);
          outages.push({ mode, stopIssued, stopped, startIssued, ready });
          waiters.push(poll, stream);
          // Until both hubs have served a read since, and a little more of the steady load.
          for (const hub of ['A', 'B'] as const) {
            while (
              !samples.some((s) => s.client === `probe ${hub}` && s.start >= ready && s.status === 200) &&
              Date.now() < ready + 20_000
            )
              await sleep(50);
          }
          await sleep(2_000);
          // Each hub's LISTEN connection, lost with the others, is back.
          while ((await listening()) < 2 && Date.now() < ready + 20_000) await sleep(50);
          relistened.push(await listening());
        }
      } finally {
        finish();
        await Promise.all([...load, ...waiters]);
      }

      const report = outages.map((outage, index) => {
        const firstOk = (hub: 'A' | 'B') =>
          Math.min(
            ...samples
              .filter((s) => s.client === `probe ${hub}` && s.start >= outage.ready && s.status === 200)
              .map((s) => s.end),
          );
        const down = samples.filter(
          (s) => s.start >= outage.stopped && s.end <= outage.startIssued && !s.client.startsWith('live'),
        );
        return {
          mode: outage.mode,
          stopMs: outage.stopped - outage.stopIssued,
          startToReadyMs: outage.ready - outage.startIssued,
          recoveryMs: { A: firstOk('A') - outage.ready, B: firstOk('B') - outage.ready },
          slowest503Ms: Math.max(...down.map((s) => s.end - s.start)),
          waitersEndedMs: ended.filter((e) => e.outage === index).map((e) => ({ [e.what]: e.end - outage.stopIssued })),
        };
      });
      console.log(`database faults: ${samples.length} requests; ${JSON.stringify(report)}`);

      // Never a 500, never a connection refused or cut by a hub; nothing but successes and 503s (and the page's redirect).
      expect(
        samples.filter(
          (s) =>
            s.status !== 503 &&
            !(s.status >= 200 && s.status < 300) &&
            !(s.client.startsWith('page') && s.status === 303),
        ),
      ).toEqual([]);
      // Every 503 is database_unavailable with Retry-After: 1; readiness's is not_ready; the page's is a page.
      const expected503 = (s: Sample) =>
        s.client.startsWith('ready')
          ? s.code === 'not_ready'
          : s.client.startsWith('page')
            ? s.code === undefined && s.retryAfter === '1'
            : s.code === 'database_unavailable' && s.retryAfter === '1';
      expect(samples.filter((s) => s.status === 503 && !expected503(s))).toEqual([]);
      // No request past the ceiling; the long-polls of up to 5 s not counted past their own wait.
      expect(
        samples.filter(
          (s) => s.end - s.start > CEILING_MS + (s.client === 'long-poll' ? 5_000 : 0) && s.client !== 'idle long-poll',
        ),
      ).toEqual([]);
      for (const [index, outage] of outages.entries()) {
        // While PostgreSQL is down, what needs it is 503 on both hubs; liveness is 200.
        const down = samples.filter((s) => s.start >= outage.stopped && s.end <= outage.startIssued);
        for (const hub of ['A', 'B'] as const) {
          expect(
            down.filter((s) => s.hub === hub && s.status === 503).length,
            `503s from hub ${hub} during the ${outage.mode} stop`,
          ).toBeGreaterThan(0);
          expect(
            down.filter((s) => s.hub === hub && s.client.startsWith('live') && s.status === 200).length,
          ).toBeGreaterThan(0);
        }
        expect(down.filter((s) => (s.client.startsWith('live') ? s.status !== 200 : s.status !== 503))).toEqual([]);
        for (const client of ['ready', 'page'])
          expect(
            down.some((s) => s.client.startsWith(client)),
            client,
          ).toBe(true);
        // The waiters in place when it stopped ended soon after (a 503 for the long-poll), not at their own time.
        const waiters = ended.filter((e) => e.outage === index);
        expect(waiters.map((e) => e.what).sort()).toEqual(['long-poll', 'stream']);
        expect(waiters.filter((e) => e.end - outage.stopIssued > CEILING_MS)).toEqual([]);
        expect(waiters.find((e) => e.what === 'long-poll')?.status).toBe(503);
        // Back: each hub serves within RECOVERY_MS of PostgreSQL accepting connections.
        const recovery = report[index]?.recoveryMs ?? { A: Infinity, B: Infinity };
        expect(recovery.A, `hub A's first success after the ${outage.mode} stop`).toBeLessThanOrEqual(RECOVERY_MS);
        expect(recovery.B, `hub B's first success after the ${outage.mode} stop`).toBeLessThanOrEqual(RECOVERY_MS);
      }
      expect(relistened).toEqual([2, 2]);
      // The load went on after the outages on both hubs.
      const last = outages.at(-1) as Outage;
      for (const client of ['install first', 'install second', 'dispatch', 'validate', 'heartbeat']) {
        expect(
          samples.some((s) => s.client === client && s.start >= last.ready && s.status >= 200 && s.status < 300),
          client,
        ).toBe(true);
      }

      await expectStored();
      // Logged once per outage, not per request or per sweep; nothing crashed.
      for (const hub of [hubs.A, hubs.B]) {
        const lines = hub.output();
        expect(lines.match(/database unavailable: requests that need it/g)?.length).toBe(outages.length);
        expect((lines.match(/sweep skipped/g) ?? []).length).toBeLessThanOrEqual(outages.length);
        expect(lines).not.toMatch(/sweep failed|request failed"|uncaught|TypeError/);
        expect(hub.process.exitCode).toBeNull();
      }
    }, 120_000);

    it('goes on serving from one hub while the other is killed (SIGKILL) mid-install, and stores nothing of the killed install but whole', async () => {
      const { A, B } = hubs;
      const before = await call(A, 'POST', '/api/v1/configurations/install', {
        token: ctx.key,
        body: { projectSlug: 'killed', yaml: small(0) },
      });
      expect(before.status, before.text).toBe(201);
      installs.push({ project: 'killed', version: before.body.version, versionId: before.body.versionId });
      const big = large(850_000);
      // Large installs to hub B, which is killed while they are under way (compiling or storing).
      const onB = [1, 2, 3].map(() =>
        call(B, 'POST', '/api/v1/configurations/install', {
          token: ctx.key,
          body: { projectSlug: 'killed', yaml: big },
        }).then(
          (answer) => {
            if (answer.status === 201)
              installs.push({ project: 'killed', version: answer.body.version, versionId: answer.body.versionId });
            return answer.status === 503 ? `503 ${answer.body?.code}` : answer.status;
          },
          () => 0,
        ),
      );
      const exited = new Promise((resolve) => B.process.once('exit', resolve));
      await sleep(250);
      B.process.kill('SIGKILL');
      await exited;
      // Hub A meanwhile, and after: installs to the same project, a large one too, and validates.
      const onA: number[] = [];
      for (let n = 1; n <= 4; n++) {
        const answer = await call(A, 'POST', '/api/v1/configurations/install', {
          token: ctx.key,
          body: { projectSlug: 'killed', yaml: n === 4 ? big : small(n) },
        });
        onA.push(answer.status);
        if (answer.status === 201)
          installs.push({ project: 'killed', version: answer.body.version, versionId: answer.body.versionId });
        onA.push(
          (
            await call(A, 'POST', '/api/v1/configurations/validate', {
              token: ctx.key,
              body: { projectSlug: 'killed', yaml: small(n) },
            })
          ).status,
        );
      }
      expect(onA).toEqual([201, 200, 201, 200, 201, 200, 201, 200]);
      // B's answers, if any came before the kill, were successes (or its compile queue was full:
      // nothing stored); the rest got none.
      const answeredByB = await Promise.all(onB);
      console.log(
        `database faults: hub B killed with its large installs answered ${JSON.stringify(answeredByB)} (0: none)`,
      );
      for (const status of answeredByB) expect([0, 201, '503 server_busy']).toContain(status);
      await expectStored();
    }, 60_000);

    /** Sessions of hubs whose last statement was a LISTEN: each hub's wake-up connection. */
    async function listening(): Promise<number> {
      const [row] = await sql<{ count: number }[]>`
      select count(*)::int as count from pg_stat_activity where application_name = 'hub' and query ~ '^listen "hub_'`;
      return row?.count ?? 0;
    }

    async function nonceCount(daemonId: string): Promise<number> {
      const [row] = await sql<
        { count: number }[]
      >`select count(*)::int as count from daemon_nonces where daemon_id = ${daemonId}`;
      return row?.count ?? 0;
    }

    /** Every acknowledged install and dispatch is stored; each project's versions run 1…last without gaps, one active; each revision's audit event too. */
    async function expectStored(): Promise<void> {
      const projects = await sql<{ slug: string; lastVersion: number; versions: number[]; active: number[] }[]>`
      select p.slug, p.last_version as "lastVersion",
             coalesce(array_agg(r.version order by r.version) filter (where r.version is not null), '{}') as versions,
             coalesce(array_agg(r.version) filter (where r.active), '{}') as active
      from projects p join organizations o on o.id = p.organization_id
      left join configuration_revisions r on r.project_id = p.id
      where o.slug = ${ctx.org}
      group by p.slug, p.last_version`;
      for (const project of projects) {
        expect(project.versions, project.slug).toEqual(Array.from({ length: project.lastVersion }, (_, i) => i + 1));
        expect(project.active, project.slug).toEqual(project.lastVersion === 0 ? [] : [project.lastVersion]);
      }
      const stored = await sql<{ id: string; version: number; slug: string }[]>`
      select r.id, r.version, p.slug from configuration_revisions r join projects p on p.id = r.project_id
      where r.id = any(${installs.map((install) => install.versionId)}::uuid[])`;
      expect(stored.map((row) => `${row.slug}@${row.version}:${row.id}`).sort()).toEqual(
        installs.map((i) => `${i.project}@${i.version}:${i.versionId}`).sort(),
      );
      const audited = await sql<{ count: number }[]>`
      select count(*)::int as count from configuration_revisions r join projects p on p.id = r.project_id join organizations o on o.id = p.organization_id
      where o.slug = ${ctx.org} and not exists (
        select 1 from audit_events e where e.kind = 'configuration.installed' and e.subject->>'revisionId' = r.id::text)`;
      expect(audited[0]?.count).toBe(0);
      const runs = await sql<{ id: string; deliveryKey: string }[]>`
      select id, delivery_key as "deliveryKey" from trigger_runs where id = any(${dispatches.map((d) => d.triggerRunId)}::uuid[])`;
      expect(runs.map((run) => `${run.deliveryKey}:${run.id}`).sort()).toEqual(
        dispatches.map((d) => `${d.deliveryKey}:${d.triggerRunId}`).sort(),
      );
      // Each run has its execution: nothing half-stored.
      const bare = await sql<{ count: number }[]>`
      select count(*)::int as count from trigger_runs t where not exists (select 1 from executions e where e.trigger_run_id = t.id)`;
      expect(bare[0]?.count).toBe(0);
    }
  },
);

/**
 * Follows an execution's output (SSE): resolves once the stream has begun (its first event came)
 * with the moment the hub ends it, to come.
 */
async function follow(hub: RunningHub, executionId: string, key: string): Promise<{ ended: Promise<number> }> {
  const response = await fetch(`${hub.url}/api/v1/executions/${executionId}/output`, {
    headers: { accept: 'text/event-stream', authorization: `Bearer ${key}` },
    // Long enough to tell a stream the hub ended from one that waits out its keep-alive (15 s).
    signal: AbortSignal.timeout(20_000),
  });
  if (response.status !== 200 || response.body === null)
    throw new Error(`stream: ${response.status} ${await response.text()}`);
  const reader = response.body.getReader();
  await reader.read();
  const ended = (async () => {
    try {
      while (!(await reader.read()).done);
    } catch {
      // Cut rather than ended: ended all the same.
    }
    return Date.now();
  })();
  return { ended };
}
