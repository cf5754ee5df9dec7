// The hub's PostgreSQL clients (db/connect.ts) against a real PostgreSQL: the errors of a database
// that is away or of the hub's own bounds are recognised (db/health.ts), and a connection that
// PostgreSQL ends under a transaction neither crashes the process nor lets the transaction's
// statements run anywhere else (the postgres.js patch in patches/).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, DEFAULT_DATABASE_TIMEOUTS } from '../src/db/connect.js';
import { databaseUnavailable, lostDatabase } from '../src/db/health.js';
import { freePort } from './support/cluster.js';
import { freshDatabase } from './support/hub.js';

const caught = async (work: Promise<unknown>): Promise<unknown> =>
  work.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('database errors', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let sql: Sql;
  let admin: Sql;

  beforeAll(async () => {
    database = await freshDatabase();
    sql = connectDatabase(database.url, {
      max: 2,
      name: 'hub-test',
      timeouts: { ...DEFAULT_DATABASE_TIMEOUTS, statementTimeoutMs: 300, idleInTransactionTimeoutMs: 300 },
    });
    admin = connectDatabase(database.url, { max: 1, name: 'hub-test-admin', timeouts: DEFAULT_DATABASE_TIMEOUTS });
    await admin`create table marks (name text primary key)`;
  });
  afterAll(async () => {
    await sql?.end();
    await admin?.end();
    await database?.drop();
  });

  it('takes a refused connection for a database that is away', async () => {
    const port = await freePort();
    const nowhere = connectDatabase(`postgres://postgres@127.0.0.1:${port}/postgres`, {
      max: 1,
      name: 'hub-test',
      timeouts: DEFAULT_DATABASE_TIMEOUTS,
    });
    const error = await caught(nowhere`select 1`);
    await nowhere.end();
    expect(error).toMatchObject({ code: 'ECONNREFUSED' });
    expect(lostDatabase(error)).toBe(true);
    expect(databaseUnavailable(error)).toBe(true);
  });

  it('takes a statement past statement_timeout for a 503, not for a database that went away', async () => {
    const error = await caught(sql`select pg_sleep(2)`);
    expect(error).toMatchObject({ code: '57014' });
    expect(databaseUnavailable(error)).toBe(true);
    expect(lostDatabase(error)).toBe(false);
    expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
  });

  it('takes an error of the query itself for neither', async () => {
    const error = await caught(sql`select * from no_such_table`);
    expect(error).toMatchObject({ code: '42P01' });
    expect(databaseUnavailable(error)).toBe(false);
  });

  it('ends a transaction whose session PostgreSQL terminates: it rejects, stores nothing, and the process and the client go on', async () => {
    let pid: number | undefined;
    // Observed from the start: it rejects when the session's close reaches the client, which may
    // come before the answer to pg_terminate_backend below (as a CI run on a loaded machine met).
    const transaction = caught(
      sql.begin(async (tx) => {
        await tx`insert into marks values ('terminated')`;
        pid = (await tx<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]?.pid;
        await tx`select pg_sleep(0.25)`;
        // The rollback postgres.js sends after the failure, and this, would reach no session (or another one).
        await tx`insert into marks values ('after the end')`;
      }),
    );
    while (pid === undefined) await sleep(10);
    // The close first, always (pg_terminate_backend waits for the backend to end, then a pause): the
    // transaction rejects while this awaits the answer, and no rejection is left unhandled meanwhile.
    await admin`select pg_terminate_backend(${pid}, 5000), pg_sleep(0.2)`;
    const error = await transaction;
    expect(lostDatabase(error)).toBe(true);
    // A write scheduled for the closed connection used to throw from a timer and end the process.
    await sleep(100);
    expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
    expect(await admin`select name from marks where name in ('terminated', 'after the end')`).toEqual([]);
  });

  it('lets the connection of a finished transaction close later without a rejection anyone must observe', async () => {
    // postgres.js leaves the finished transaction's close handler on its connection; the close
    // calls it, and nothing it rejects is left unhandled.
    const [session] = await sql.begin(async (tx) => tx<{ pid: number }[]>`select pg_backend_pid() as pid`);
    const pid = session?.pid ?? 0;
    await admin`select pg_terminate_backend(${pid}, 5000), pg_sleep(0.2)`;
    expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
  });

  it("takes a failure of the array types query a new connection runs first for its first query's, and no unhandled rejection", async () => {
    // postgres.js fetches the array types on each new connection and dropped that promise: the types
    // query cancelled here (it waits on the lock past statement_timeout), like one whose connection
    // PostgreSQL closes, was an unhandled rejection, which ends the hub (the patch in patches/).
    const fresh = connectDatabase(database.url, {
      max: 1,
      name: 'hub-test-types',
      timeouts: { ...DEFAULT_DATABASE_TIMEOUTS, statementTimeoutMs: 200 },
    });
    let release = (): void => {};
    let locked = (): void => {};
    const lock = new Promise<void>((resolve) => (locked = resolve));
    const holder = caught(
      admin.begin(async (tx) => {
        await tx`lock table pg_catalog.pg_type in access exclusive mode`;
        locked();
        await new Promise<void>((resolve) => (release = resolve));
      }),
    );
    try {
      await lock;
      const error = await caught(fresh`select 1 as one`);
      expect(error).toMatchObject({ code: '57014' });
      expect(databaseUnavailable(error)).toBe(true);
    } finally {
      release();
      expect(await holder).toBeUndefined();
    }
    expect(await fresh`select 1 as one`).toEqual([{ one: 1 }]);
    await fresh.end();
  });

  it('ends a transaction idle past idle_in_transaction_session_timeout: nothing of it is stored, nor run in the next one', async () => {
    let later: Promise<unknown> | undefined;
    const idle = sql.begin(async (tx) => {
      await tx`insert into marks values ('idle')`;
      await sleep(1_000);
      later = caught(tx`insert into marks values ('idle, later')`);
      await later;
    });
    const error = await caught(idle);
    expect(databaseUnavailable(error)).toBe(true);
    // Another transaction is open (on the same connection, reconnected, or the other) when the
    // dead one's callback goes on: its statement is refused, not run in this one.
    await sql.begin(async (tx) => {
      await tx`insert into marks values ('next')`;
      // Busy, not idle, meanwhile: its own statements keep it inside the bound.
      while (later === undefined) await tx`select pg_sleep(0.02)`;
      expect(lostDatabase(await later)).toBe(true);
    });
    expect(
      (
        await admin<{ name: string }[]>`select name from marks where name like 'idle%' or name = 'next' order by name`
      ).map((row) => row.name),
    ).toEqual(['next']);
  });
});
