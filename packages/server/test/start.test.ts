// `pnpm start`, the real script, stopped the way a terminal stops it: Ctrl-C signals the whole
// foreground process group (pnpm, the hub, and anything else in it). The hub must stop accepting,
// let what is in flight finish on a database that is still there, stop its embedded PostgreSQL
// last, and exit 0 so that pnpm prints no error banner. Also: a data directory the `postgres`
// account cannot enter (as root).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, setUp } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { processAlive } from './support/hub.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const AS_ROOT = process.getuid?.() === 0;
const MINUTE = 60_000;
/** main.ts's SAME_REQUEST_MS: a later signal is a second request (stop at once). */
const SAME_REQUEST_MS = 1_000;

const CONFIGURATION = `
environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: /tmp/work }
triggers:
  - name: fix-tests
    on: { manual.run: {} }
    max_runtime: 2h
    filters: { from_users: [dev-lead] }
    steps:
      - { id: fix, environment: laptop, agent: { provider: claude }, prompt: [ { text: "Fix {{ prompt }}" } ] }
`;

interface Started {
  url: string;
  adminToken: string;
  child: ChildProcess;
  output(): string;
  /** Resolves once `pattern` has been printed. */
  printed(pattern: RegExp): Promise<void>;
  /** Signals the whole process group, as a terminal does; resolves with how pnpm ended and how long it took. */
  signalGroup(signal: NodeJS.Signals): {
    exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
  };
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

let pnpm: string;

beforeAll(() => {
  // The pinned pnpm itself (npx's copy), so that the group holds pnpm, the hub and nothing else.
  pnpm = execFileSync('npx', ['-y', '-p', 'pnpm@10.34.9', '-c', 'command -v pnpm'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
}, 2 * MINUTE);

/** `pnpm start` in a process group of its own (as a terminal's foreground job), on `dataDir`. */
async function pnpmStart(dataDir: string, options: { expectFailure?: boolean } = {}): Promise<Started> {
  const adminToken = `hub_admin_test_${randomBytes(16).toString('hex')}`;
  const child = spawn(pnpm, ['start'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: `${dirname(pnpm)}:${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? tmpdir(),
      HOST: '127.0.0.1',
      PORT: '0',
      HUB_DATA_DIR: dataDir,
      HUB_ADMIN_TOKEN: adminToken,
      HUB_LOG_LEVEL: 'info',
      HUB_VALIDATE_RESPONSES: '1',
    },
  });
  let output = '';
  const waiting = new Set<() => void>();
  const take = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of waiting) check();
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const printed = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(output)) return;
        waiting.delete(check);
        resolve();
      };
      waiting.add(check);
      check();
      void exited.then(() =>
        waiting.has(check) ? reject(new Error(`exited before printing ${pattern}:\n${output}`)) : undefined,
      );
    });
  let url = '';
  if (!options.expectFailure) {
    await printed(/Hub listening on \S+\n/);
    url = /Hub listening on (\S+)\n/.exec(output)?.[1] as string;
  }
  return {
    url,
    adminToken,
    child,
    output: () => output,
    printed,
    exited,
    signalGroup: (signal) => {
      const began = performance.now();
      process.kill(-(child.pid as number), signal);
      return { exited: exited.then((end) => ({ ...end, ms: Math.round(performance.now() - began) })) };
    },
  };
}

/** The postmaster's pid from its pid file, while it runs. */
function postmasterPid(cluster: string): number {
  return Number(readFileSync(join(cluster, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** Processes whose command line names `cluster` (a postmaster started with -D cluster). */
function processesOn(cluster: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(cluster)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** A process's group, from /proc/<pid>/stat (the field after the state). */
function processGroup(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

/** A request whose headers the hub has taken (it answered 100 Continue); its body goes when `send` is called. */
function held(
  url: string,
  method: string,
  path: string,
  options: { token?: string; body: string },
): Promise<{
  send(): Promise<{ status: number; connection: string | undefined; text: string }>;
  answer: Promise<unknown>;
}> {
  return new Promise((resolveHeld, reject) => {
    const headers: Record<string, string> = {
      expect: '100-continue',
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(options.body)),
    };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let settle: (value: { status: number; connection: string | undefined; text: string }) => void = () => {};
    let fail: (error: Error) => void = () => {};
    const answer = new Promise<{ status: number; connection: string | undefined; text: string }>(
      (resolveAnswer, rejectAnswer) => {
        settle = resolveAnswer;
        fail = rejectAnswer;
      },
    );
    answer.catch(() => {});
    const req = request(`${url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (part: string) => (text += part));
      res.on('end', () => settle({ status: res.statusCode ?? 0, connection: res.headers.connection, text }));
    });
    req.on('error', (error) => {
      fail(error);
      reject(error);
    });
    req.on('continue', () =>
      resolveHeld({
        send: () => {
          req.end(options.body);
          return answer;
        },
        answer,
      }),
    );
    req.flushHeaders();
  });
}

/** An SSE stream whose headers have come; `ended` says whether its body ended cleanly or was cut. */
function openStream(
  url: string,
  path: string,
  token: string,
): Promise<{ status: number; ended: Promise<'end' | 'cut'> }> {
  return new Promise((resolveOpen, reject) => {
    const req = request(
      `${url}${path}`,
      { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } },
      (res) => {
        const ended = new Promise<'end' | 'cut'>((resolveEnd) => {
          res.on('end', () => resolveEnd('end'));
          res.on('error', () => resolveEnd('cut'));
          res.on('aborted', () => resolveEnd('cut'));
        });
        res.resume();
        resolveOpen({ status: res.statusCode ?? 0, ended });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('pnpm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-start-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'on %s to its process group, finishes what is in flight, stops its PostgreSQL last, and exits 0 without an error banner',
    async (signal) => {
      const hub = await pnpmStart(dataDir);
      // Built already (the suite's set-up bundles the CLI): a start builds only what changed.
      expect(hub.output()).not.toMatch(/hub bundled/);
      const cluster = join(dataDir, 'postgres');
      const postmaster = postmasterPid(cluster);
      // PostgreSQL is in a group of its own: the terminal's signal does not reach it.
      expect(processGroup(postmaster)).not.toBe(hub.child.pid);

      const ctx = await setUp(hub);
      const daemon = await TestDaemon.enroll(hub, ctx.key, 'dev-box');
      await daemon.heartbeat();
      expect(
        (
          await call(hub, 'POST', '/api/v1/configurations/install', {
            token: ctx.key,
            body: { projectSlug: ctx.project, yaml: CONFIGURATION },
          })
        ).status,
      ).toBe(201);
      const dispatched = await call(hub, 'POST', '/api/v1/manual-runs', {
        token: ctx.key,
        body: { projectSlug: ctx.project, trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: `start-${signal}` },
      });
      expect(dispatched.status, dispatched.text).toBe(200);
      const taken = await daemon.next(5);
      expect(taken.status, taken.text).toBe(200);
      const executionId = taken.body.assignment.executionId as string;
      expect((await daemon.report(executionId, 'running')).status).toBe(200);

      // In flight as the signal comes: a live output stream (its headers came), a request whose
      // body is sent only once the hub is stopping (its headers came), and a daemon's long-poll.
      const stream = await openStream(hub.url, `/api/v1/executions/${executionId}/output`, ctx.key);
      expect(stream.status).toBe(200);
      const validate = await held(hub.url, 'POST', '/api/v1/configurations/validate', {
        token: ctx.key,
        body: JSON.stringify({ projectSlug: ctx.project, yaml: CONFIGURATION }),
      });
      const poll = daemon.next(30).then(
        (answer) => answer.status,
        () => 'no answer (connection closed)',
      );

      const { exited } = hub.signalGroup(signal);
      await hub.printed(/"message":"stopping"/);
      const validated = await validate.send();
      const end = await exited;
      console.log(`pnpm start: ${signal} to the group → exit ${end.code ?? end.signal} after ${end.ms} ms`);

      expect(validated, validated.text).toMatchObject({ status: 200, connection: 'close' });
      expect(await stream.ended).toBe('end');
      // A long-poll answers at once as the hub stops; one that came too late finds no listener.
      expect([204, 'no answer (connection closed)']).toContain(await poll);
      expect(end, hub.output()).toMatchObject({ code: 0, signal: null });
      expect(hub.output()).not.toMatch(/ELIFECYCLE|Command failed|"level":"error"/);
      expect(hub.output()).toMatch(/"message":"stopped"/);
      expect(existsSync(join(cluster, 'postmaster.pid'))).toBe(false);
      expect(processAlive(postmaster)).toBe(false);
      expect(processesOn(cluster)).toEqual([]);
    },
    5 * MINUTE,
  );

  it(
    'stops at once on a second signal, PostgreSQL included, while a request holds the orderly stop',
    async () => {
      const hub = await pnpmStart(dataDir);
      const cluster = join(dataDir, 'postgres');
      const postmaster = postmasterPid(cluster);
      // Enrollment reads its body: with none sent, the orderly stop waits for this request.
      const enroll = await held(hub.url, 'POST', '/api/v1/daemons/enroll', { body: '{}' });
      const { exited } = hub.signalGroup('SIGINT');
      await hub.printed(/"message":"stopping"/);
      // Later than the same Ctrl-C passed on by pnpm: a second one.
      await new Promise((resolve) => setTimeout(resolve, SAME_REQUEST_MS * 1.5));
      hub.signalGroup('SIGINT');
      const end = await exited;
      console.log(`pnpm start: SIGINT, then SIGINT again → exit ${end.code ?? end.signal} after ${end.ms} ms`);
      expect(hub.output()).toMatch(/stopping at once \(SIG(INT|TERM) again\)/);
      await expect(enroll.answer).rejects.toThrow();
      expect(processAlive(postmaster)).toBe(false);
      expect(processesOn(cluster)).toEqual([]);
      // An immediate shutdown: the next start recovers and serves.
      const again = await pnpmStart(dataDir);
      expect((await call(again, 'GET', '/readyz')).status).toBe(200);
      expect((await again.signalGroup('SIGTERM').exited).code).toBe(0);
    },
    5 * MINUTE,
  );
});

describe('pnpm start with a data directory the postgres account cannot enter', () => {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'keeps the cluster in a directory it can enter, says where, and serves',
    async ({ skip }) => {
      if (!AS_ROOT)
        skip(
          'only as root does PostgreSQL run as another account (postgres); otherwise it runs as the hub does and reaches what the hub reaches',
        );
      const parent = mkdtempSync(join(tmpdir(), 'hub-unreachable-'));
      made.push(parent);
      expect(statSync(parent).mode & 0o777).toBe(0o700);
      const dataDir = join(parent, 'data');
      const hub = await pnpmStart(dataDir);
      const cluster = readFileSync(join(dataDir, 'postgres-location'), 'utf8').trim();
      made.push(cluster);
      expect(cluster).toMatch(/^\/var\/lib\/hub\/clusters\/[0-9a-f]{16}$/);
      expect(existsSync(join(cluster, 'PG_VERSION'))).toBe(true);
      expect(hub.output()).toContain(
        `"message":"embedded PostgreSQL cluster kept outside the data directory","cluster":"${cluster}"`,
      );
      expect(hub.output()).toContain(`cannot enter ${parent}`);
      const ctx = await setUp(hub);
      expect((await call(hub, 'GET', '/api/v1/projects', { token: ctx.key })).status).toBe(200);
      const end = await hub.signalGroup('SIGINT').exited;
      expect(end, hub.output()).toMatchObject({ code: 0, signal: null });
      expect(processesOn(cluster)).toEqual([]);
    },
    5 * MINUTE,
  );

  it(
    'says which directory blocks it and what to do when a cluster already sits there, without a stack trace',
    async ({ skip }) => {
      if (!AS_ROOT) skip('only as root does PostgreSQL run as another account (postgres)');
      const parent = mkdtempSync(join(tmpdir(), 'hub-unreachable-'));
      made.push(parent);
      const dataDir = join(parent, 'data');
      // A cluster made before the directory was closed to the account: it is not moved.
      mkdirSync(join(dataDir, 'postgres'), { recursive: true });
      writeFileSync(join(dataDir, 'postgres', 'PG_VERSION'), '18\n');
      const hub = await pnpmStart(dataDir, { expectFailure: true });
      const end = await hub.exited;
      expect(end.code).not.toBe(0);
      expect(hub.output()).toContain(
        `hub: the embedded PostgreSQL's cluster in ${join(dataDir, 'postgres')} cannot be reached by the postgres account that PostgreSQL runs as (the hub runs as root, and PostgreSQL refuses root): it cannot enter ${parent}. ` +
          `Set HUB_DATA_DIR to a directory it can enter (such as /srv/hub), or set DATABASE_URL to a PostgreSQL of yours, or let it in (chmod o+x ${parent})\n`,
      );
      expect(hub.output()).not.toMatch(/^\s+at /m);
    },
    5 * MINUTE,
  );
});
