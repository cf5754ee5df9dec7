// Schedules against real PostgreSQL and real hub processes (DECISIONS.md, Schedules): two
// instances fire each tick once; an install replaces the schedule at once; after a downtime the
// latest missed tick fires once, if it is at most an hour late; a tick whose daemon is offline is
// a failed run naming it. The schedulers' clock is the test hook HUB_TEST_CLOCK_FILE, moved by the
// test; one test waits for a real minute.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres, { type Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, setUp } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { freshDatabase, hubOn, startHub, type RunningHub } from './support/hub.js';
import { eventually } from './support/poll.js';

const configuration = (tick: { cron: string; input: string }) => `
environments:
  - { name: box, kind: daemon, daemon: dev-box, cwd: /tmp/work }
  - { name: asleep, kind: daemon, daemon: sleepy-box, cwd: /tmp/work }
triggers:
  - name: tick
    max_runtime: 1h
    on:
      manual.run:
        inputs:
          which: { required: true, enum: [first, second] }
      schedule:
        - cron: "${tick.cron}"
          input: "${tick.input}"
    filters:
      from_users: [dev-lead]
    steps:
      - id: work
        environment: box
        agent: { provider: claude }
        prompt: [{ text: "Tick: {{ inputs.which }} {{ prompt }}" }]
  - name: night
    max_runtime: 1h
    on:
      schedule:
        - cron: "0 3 * * *"
          timezone: Europe/Berlin
    steps:
      - id: work
        environment: asleep
        agent: { provider: claude }
        prompt: [{ text: "Nightly at {{ event.scheduled_at }}" }]
`;

interface ScheduledRun {
  triggerRunId: string;
  trigger: string;
  actor: string;
  source: string;
  status: string;
  inputs: Record<string, string>;
  event: { scheduledAt: string; cron: string; timezone: string };
  message?: string;
}

describe('schedules on two hub instances with the test clock (external PostgreSQL)', () => {
  let database: { url: string; drop(): Promise<void> };
  let sql: Sql;
  const dir = mkdtempSync(join(tmpdir(), 'hub-clock-'));
  const clockFile = join(dir, 'now');
  const setClock = (iso: string) => writeFileSync(clockFile, iso);
  let hubs: RunningHub[] = [];
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let daemon: TestDaemon;

  const start = () => startHub({ databaseUrl: database.url, env: { HUB_TEST_CLOCK_FILE: clockFile } });
  const runs = async (): Promise<ScheduledRun[]> => {
    const answer = await call(hubs[0] as RunningHub, 'GET', '/api/v1/runs?source=schedule&limit=200', {
      token: ctx.key,
    });
    expect(answer.status, answer.text).toBe(200);
    return (answer.body.runs as ScheduledRun[]).toReversed();
  };
  const install = async (tick: { cron: string; input: string }) => {
    const installed = await call(hubs[0] as RunningHub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: ctx.project, yaml: configuration(tick) },
    });
    expect(installed.status, installed.text).toBe(201);
    // The schedulers give the new entries their first ticks at once (NOTIFY).
    await eventually(
      () => sql`select count(*)::int as n from schedule_entries where next_fire_at is null`,
      ([row]) => row?.n === 0,
      'first ticks computed',
    );
  };
  const ticksOf = (found: ScheduledRun[], trigger: string) =>
    found.filter((run) => run.trigger === trigger).map((run) => run.event.scheduledAt);

  beforeAll(async () => {
    database = await freshDatabase();
    sql = postgres(database.url, { max: 2, onnotice: () => {} });
    setClock('2030-01-01T00:00:30Z');
    hubs = await Promise.all([start(), start()]);
    ctx = await setUp(hubs[0] as RunningHub);
    daemon = (await TestDaemon.enroll(hubs[0] as RunningHub, ctx.key, 'dev-box')).keepAlive(300);
    await daemon.heartbeat();
    // Enrolled, and never seen since: offline.
    await TestDaemon.enroll(hubs[0] as RunningHub, ctx.key, 'sleepy-box');
    await sql`update daemons set last_seen_at = now() - interval '1 day' where name = 'sleepy-box'`;
    await install({ cron: '* * * * *', input: 'which=first go' });
  }, 120_000);
  afterAll(async () => {
    daemon?.stop();
    await Promise.all(hubs.map((hub) => hub.stop()));
    await sql?.end();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fires each tick of a schedule once across two instances, as runs with source schedule', async () => {
    for (const minute of ['01', '02', '03']) {
      setClock(`2030-01-01T00:${minute}:00.400Z`);
      await eventually(runs, (found) => ticksOf(found, 'tick').includes(`2030-01-01T00:${minute}:00.000Z`), minute);
    }
    // Both instances have looked at the clock many times since the last tick.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const found = await runs();
    expect(ticksOf(found, 'tick')).toEqual([
      '2030-01-01T00:01:00.000Z',
      '2030-01-01T00:02:00.000Z',
      '2030-01-01T00:03:00.000Z',
    ]);
    expect(found[0]).toMatchObject({
      trigger: 'tick',
      actor: 'schedule',
      source: 'schedule',
      inputs: { which: 'first' },
      event: { cron: '* * * * *', timezone: 'UTC' },
    });
    const [row] = await sql<{ prompt: string; key: string }[]>`
      select plan -> 0 ->> 'prompt' as prompt, delivery_key as key from trigger_runs where id = ${found[0]?.triggerRunId as string}`;
    expect(row?.prompt).toBe('Tick: first go');
    expect(row?.key).toMatch(/^schedule:[0-9a-f-]{36}:2030-01-01T00:01:00\.000Z$/);
  });

  it('replaces the schedule at once when a revision is installed mid-minute', async () => {
    setClock('2030-01-01T00:03:30Z');
    await install({ cron: '*/2 * * * *', input: 'which=second' });
    setClock('2030-01-01T00:04:00.400Z');
    const found = await eventually(runs, (all) => ticksOf(all, 'tick').length === 4, 'the new schedule fired');
    expect(found.filter((run) => run.trigger === 'tick').at(-1)).toMatchObject({
      inputs: { which: 'second' },
      event: { scheduledAt: '2030-01-01T00:04:00.000Z', cron: '*/2 * * * *' },
    });
    setClock('2030-01-01T00:05:00.400Z');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(ticksOf(await runs(), 'tick')).toHaveLength(4);
  });

  it('fires the latest missed tick once after a downtime', async () => {
    await install({ cron: '* * * * *', input: 'which=first' });
    await Promise.all(hubs.map((hub) => hub.stop()));
    // No hub runs at 00:06 nor 00:07.
    setClock('2030-01-01T00:07:30Z');
    hubs = [await start()];
    const found = await eventually(runs, (all) => ticksOf(all, 'tick').length === 5, 'the missed tick fired');
    expect(ticksOf(found, 'tick').at(-1)).toBe('2030-01-01T00:07:00.000Z');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(ticksOf(await runs(), 'tick')).toHaveLength(5);
    expect(hubs[0]?.output() ?? '').toContain('schedule ticks missed while no hub ran were skipped');
  });

  it('records a tick whose daemon is offline as a failed run that names the daemon', async () => {
    // 03:00 in Berlin on 2030-01-02 is 02:00 UTC (the one of 2030-01-01 was skipped: see below).
    setClock('2030-01-02T02:00:00.400Z');
    const found = await eventually(runs, (all) => ticksOf(all, 'night').length === 1, 'the nightly tick');
    const night = found.find((run) => run.trigger === 'night');
    expect(night).toMatchObject({
      status: 'failed',
      source: 'schedule',
      actor: 'schedule',
      event: { scheduledAt: '2030-01-02T02:00:00.000Z', timezone: 'Europe/Berlin' },
    });
    expect(night?.message).toContain('"sleepy-box" was offline');
    const view = await call(hubs[0] as RunningHub, 'GET', `/api/v1/runs/${night?.triggerRunId}`, { token: ctx.key });
    expect(view.body).toMatchObject({ status: 'failed', executions: [], message: night?.message });
    const [row] = await sql<{ prompt: string }[]>`
      select plan -> 0 ->> 'prompt' as prompt from trigger_runs where id = ${night?.triggerRunId as string}`;
    expect(row?.prompt).toBe('Nightly at 2030-01-02T02:00:00.000Z');
  });

  it('skips a missed tick that is over an hour late, and says so', async () => {
    await hubs[0]?.stop();
    // The nightly 02:00 UTC of 2030-01-03 is an hour and a half late when a hub returns.
    setClock('2030-01-03T03:30:30Z');
    hubs = [await start()];
    await eventually(
      () => Promise.resolve(hubs[0]?.output() ?? ''),
      (output) => output.includes('over an hour late'),
      'the skip logged',
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(ticksOf(await runs(), 'night')).toEqual(['2030-01-02T02:00:00.000Z']);
    const [entry] = await sql<{ next: Date }[]>`
      select next_fire_at as next from schedule_entries where trigger_name = 'night'`;
    expect(entry?.next.toISOString()).toBe('2030-01-04T02:00:00.000Z');
  });
});

describe('a schedule on the real clock (embedded PostgreSQL)', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let daemon: TestDaemon;

  beforeAll(async () => {
    hub = await hubOn('embedded');
    ctx = await setUp(hub);
    daemon = (await TestDaemon.enroll(hub, ctx.key, 'dev-box')).keepAlive(300);
    await daemon.heartbeat();
    await TestDaemon.enroll(hub, ctx.key, 'sleepy-box');
  }, 120_000);
  afterAll(async () => {
    daemon?.stop();
    await hub?.close();
  });

  it('fires at the next whole minute, and the daemon gets the run', async () => {
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: ctx.project, yaml: configuration({ cron: '* * * * *', input: 'which=first' }) },
    });
    expect(installed.status, installed.text).toBe(201);
    const since = Date.now();
    const assignment = await eventually(
      () => daemon.next(20),
      (answer) => answer.status === 200,
      'an assignment',
    );
    const run = (await call(hub, 'GET', `/api/v1/runs/${assignment.body.assignment.triggerRunId}`, { token: ctx.key }))
      .body as ScheduledRun;
    expect(run).toMatchObject({ source: 'schedule', trigger: 'tick', status: 'running' });
    const tick = Date.parse(run.event.scheduledAt);
    expect(tick % 60_000).toBe(0);
    expect(tick).toBeGreaterThan(since - 60_000);
  }, 150_000);
});
