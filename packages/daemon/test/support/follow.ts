// Two hub instances on one PostgreSQL (the machine's), the reference daemon run in this process
// against the first with a stand-in agent that prints numbered lines a few ms apart, and a reader
// of an execution's output as Server-Sent Events from the second, which resumes with
// Last-Event-ID after a drop. The first hub listens on a port chosen here, so that it can stop
// and come back on the same URL while the daemon goes on talking to it.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { call, setUp } from '../../../server/test/support/client.js';
import { freshDatabase, startHub, type RunningHub } from '../../../server/test/support/hub.js';
import { HubClient, runDaemon, sleep, type HubError } from '../../src/index.js';
import { agentFiles, line, until, type Run } from './rig.js';

/** Prints `line N é😀 ` (as rig.ts's `line`) for N = 1..lines, `every` ms apart; after each line in `gates`, waits for the test to open that gate; then stays silent for `silence` seconds. */
const AGENT = `import { existsSync, writeFileSync } from 'node:fs';
const env = process.env;
writeFileSync(env.AGENT_DIR + '/' + env.HUB_EXECUTION_ID + '.pid', String(process.pid));
const gate = (n) => env.AGENT_DIR + '/' + env.HUB_EXECUTION_ID + '-' + n;
const gates = new Set(env.HUB_INPUT_GATES.split(',').filter(Boolean).map(Number));
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
for (let n = 1; n <= Number(env.HUB_INPUT_LINES); n++) {
  process.stdout.write('line ' + n + ' é😀 \\n');
  if (gates.has(n)) while (!existsSync(gate(n))) await wait(20);
  await wait(Number(env.HUB_INPUT_EVERY));
}
await wait(Number(env.HUB_INPUT_SILENCE) * 1000);
`;

const configuration = (cwd: string) => `
environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: ${JSON.stringify(cwd)} }
triggers:
  - name: talk
    on:
      manual.run:
        inputs:
          lines: { description: Lines to print, required: false, default: "40" }
          every: { description: Milliseconds between lines, required: false, default: "20" }
          gates: { description: Lines after which to wait for the test, required: false, default: "" }
          silence: { description: Seconds to stay silent after the lines, required: false, default: "0" }
    max_runtime: 1h
    filters: { from_users: [dev-lead] }
    steps:
      - { id: talk, environment: laptop, agent: { provider: node }, prompt: [ { text: "Talk." } ] }
`;

/** Lines 1..count as the agent prints them. */
export const lines = (count: number) => Array.from({ length: count }, (_, i) => line(i + 1)).join('');

export interface FollowDaemon {
  logs: string[];
  /** How many lines the agent of `executionId` has printed, as the daemon read them. */
  printed(executionId: string): number;
  /** Resolves as the daemon reads line `n` of the agent of `executionId`, before it reads more. */
  whenPrinted(executionId: string, n: number): Promise<void>;
  /** Stops it as SIGTERM would, and resolves with what runDaemon answered. */
  stop(): Promise<{ refused?: HubError }>;
}

export type TwoHubs = Awaited<ReturnType<typeof twoHubs>>;

export async function twoHubs() {
  const database = await freshDatabase();
  const port = await freePort();
  const env = { PORT: String(port) };
  let one = await startHub({ databaseUrl: database.url, env });
  const two = await startHub({ databaseUrl: database.url });
  const ctx = await setUp(one);
  const dir = mkdtempSync(join(tmpdir(), 'hub-follow-'));
  writeFileSync(join(dir, 'agent.mjs'), AGENT);
  const identity = await enroll(one, ctx.key);
  const install = await call(two, 'POST', '/api/v1/configurations/install', {
    token: ctx.key,
    body: { projectSlug: ctx.project, yaml: configuration(dir) },
  });
  if (install.status !== 201) throw new Error(`install: ${install.status} ${install.text}`);
  const daemons: FollowDaemon[] = [];
  let deliveries = 0;

  const hubs = {
    /** The hub the daemon talks to. */
    get one(): RunningHub {
      return one;
    },
    /** The hub people read from. */
    two,
    key: ctx.key,

    /** SIGTERM to the first hub; its exit code once it has stopped. */
    stopOne: () => one.stop(),
    /** The first hub again, on the same database, data directory, admin token and URL. */
    async startOne(): Promise<void> {
      one = await startHub({
        databaseUrl: database.url,
        dataDir: one.dataDir,
        env: { ...env, HUB_ADMIN_TOKEN: one.adminToken },
      });
    },

    /** Runs the reference daemon with the enrolled identity (the same each time) against the first hub, once connected. */
    async daemon(): Promise<FollowDaemon> {
      const daemon = startDaemon(new HubClient(one.url, identity), dir);
      daemons.push(daemon);
      await until(
        'the daemon connected',
        () => daemon.logs.includes('Connected; waiting for assignments.'),
        () => daemon.logs.join('\n'),
      );
      return daemon;
    },

    /** Dispatches `talk` on the second hub with `input` ("lines=40 every=20 gates=1"); the run's id. */
    async dispatch(input: string): Promise<string> {
      const body = {
        projectSlug: ctx.project,
        trigger: 'talk',
        actor: 'dev-lead',
        deliveryKey: `follow-${Date.now()}-${++deliveries}`,
        input,
      };
      const answer = await call(two, 'POST', '/api/v1/manual-runs', { token: ctx.key, body });
      if (answer.status !== 200) throw new Error(`dispatch: ${answer.status} ${answer.text}`);
      return answer.body.triggerRunId as string;
    },

    /** The run as the second hub answers it. */
    async run(runId: string): Promise<Run> {
      const answer = await call(two, 'GET', `/api/v1/runs/${runId}`, { token: ctx.key });
      if (answer.status !== 200) throw new Error(`GET /api/v1/runs/${runId}: ${answer.status} ${answer.text}`);
      return answer.body as Run;
    },

    /** The id of the run's execution, once the hub has one. */
    async execution(runId: string, logs: () => string): Promise<string> {
      let run: Run | undefined;
      await until(
        `an execution of run ${runId}`,
        async () => (run = await hubs.run(runId)).executions[0] !== undefined,
        () => `${JSON.stringify(run)}\n${logs()}`,
      );
      return run!.executions[0]!.executionId;
    },

    /** The execution's output as text, from the second hub. */
    async output(executionId: string): Promise<string> {
      return (await call(two, 'GET', `/api/v1/executions/${executionId}/output`, { token: ctx.key })).text;
    },

    /** Reads the execution's output as Server-Sent Events from the second hub. */
    follow: (executionId: string, options: FollowOptions = {}) => follow(two.url, ctx.key, executionId, options),

    ...agentFiles(dir),

    async close(): Promise<void> {
      await Promise.all(daemons.map((daemon) => daemon.stop()));
      await Promise.all([one.stop(), two.stop()]);
      await database.drop();
      for (const path of [dir, one.dataDir, two.dataDir]) rmSync(path, { recursive: true, force: true });
    },
  };
  return hubs;
}

/** A port free now: the first hub listens on it, and on it again after a restart. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Enrolls a dev-box through `hub`; its identity. */
async function enroll(hub: RunningHub, key: string): Promise<{ daemonId: string; privateKey: KeyObject }> {
  const token = await call(hub, 'POST', '/api/v1/daemons/enrollment-tokens', { token: key });
  if (token.status !== 201) throw new Error(`enrollment token: ${token.status} ${token.text}`);
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = { kty: 'OKP', crv: 'Ed25519', x: publicKey.export({ format: 'jwk' }).x as string } as const;
  const { daemonId } = await new HubClient(hub.url).enroll({
    token: token.body.token as string,
    name: 'dev-box',
    publicKey: jwk,
    runtimes: [{ provider: 'node' }],
  });
  return { daemonId, privateKey };
}

function startDaemon(client: HubClient, dir: string): FollowDaemon {
  const logs: string[] = [];
  const printed = new Map<string, number>();
  const waiters: { executionId: string; n: number; resolve: () => void }[] = [];
  // The daemon writes each line of its agents' output here as `[executionId] line`.
  const output = new Writable({
    write: (chunk: Buffer, _encoding, callback) => {
      for (const [, executionId] of chunk.toString('utf8').matchAll(/^\[(\S+)\] /gm)) {
        const count = (printed.get(executionId!) ?? 0) + 1;
        printed.set(executionId!, count);
        for (const waiter of waiters.filter((w) => w.executionId === executionId && w.n <= count)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
      callback();
    },
  });
  const stop = new AbortController();
  const done = runDaemon({
    client,
    config: {
      concurrency: 1,
      providers: new Map([['node', { command: [process.execPath, join(dir, 'agent.mjs')], env: { AGENT_DIR: dir } }]]),
    },
    configFile: join(dir, 'daemon.yml'),
    signal: stop.signal,
    log: (message) => logs.push(message),
    output,
  });
  return {
    logs,
    printed: (executionId) => printed.get(executionId) ?? 0,
    whenPrinted: (executionId, n) =>
      (printed.get(executionId) ?? 0) >= n
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ executionId, n, resolve })),
    stop: () => {
      stop.abort('received SIGTERM');
      return done;
    },
  };
}

export interface OutputEvent {
  /** The event's `id` field. */
  id: string;
  seq: number;
  stream: 'stdout' | 'stderr';
  at: string;
  text: string;
}

export interface EndEvent {
  executionId: string;
  status: string;
  exitCode: number | null;
  message: string | null;
}

export interface FollowOptions {
  /** Drops the first connection after this many output events, and resumes with Last-Event-ID. */
  dropAfter?: number;
}

export interface Following {
  /** The output events received, across connections, in the order they came. */
  events: OutputEvent[];
  /** The Last-Event-ID each connection was made with (undefined for none). */
  connections: (string | undefined)[];
  /** The end event, once the stream has sent it; rejects after 60 s without it, or on an answer other than a stream. */
  ended: Promise<EndEvent>;
}

/** How long a reader waits for the end event at most. */
const FOLLOW_DEADLINE_MS = 60_000;
/** Between a dropped connection and the next (the hub advises 2 s; a test need not wait so long). */
const RECONNECT_MS = 200;

function follow(origin: string, token: string, executionId: string, options: FollowOptions): Following {
  const events: OutputEvent[] = [];
  const connections: (string | undefined)[] = [];
  const url = `${origin}/api/v1/executions/${executionId}/output`;
  const deadline = AbortSignal.timeout(FOLLOW_DEADLINE_MS);

  const read = async (): Promise<EndEvent> => {
    let lastEventId: string | undefined;
    while (!deadline.aborted) {
      const drop = new AbortController();
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'text/event-stream' };
      if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
      connections.push(lastEventId);
      try {
        const response = await fetch(url, { headers, signal: AbortSignal.any([deadline, drop.signal]) });
        if (response.status !== 200 || !/^text\/event-stream/.test(response.headers.get('content-type') ?? '')) {
          throw new Unexpected(
            `GET ${url} (Last-Event-ID ${lastEventId ?? 'none'}): ${response.status} ${response.headers.get('content-type')}\n${await response.text()}`,
          );
        }
        const parser = new EventStreamParser();
        const decoder = new TextDecoder();
        for await (const bytes of response.body as AsyncIterable<Uint8Array>) {
          for (const event of parser.push(decoder.decode(bytes, { stream: true }))) {
            if (event.type === 'end') return JSON.parse(event.data) as EndEvent;
            if (event.type !== 'output')
              throw new Unexpected(`GET ${url}: an unexpected ${event.type} event: ${event.data}`);
            events.push({ id: event.id, ...(JSON.parse(event.data) as Omit<OutputEvent, 'id'>) });
            lastEventId = event.id;
            if (connections.length === 1 && events.length === options.dropAfter) {
              drop.abort();
              break;
            }
          }
          if (drop.signal.aborted) break;
        }
      } catch (error) {
        if (error instanceof Unexpected) throw error;
        // A connection that failed or broke: resumed below, as a browser's EventSource would.
      }
      await sleep(RECONNECT_MS, deadline);
    }
    throw new Error(
      `no end event from ${url} within ${FOLLOW_DEADLINE_MS / 1_000} s; ${events.length} output events came over ${connections.length} connections`,
    );
  };
  return { events, connections, ended: read() };
}

/** An answer that no reconnecting would change. */
class Unexpected extends Error {}

interface StreamEvent {
  type: string;
  data: string;
  /** The last event id when the event was dispatched. */
  id: string;
}

/** The HTML standard's event stream reading, as far as a hub sends it: LF or CRLF lines, comments, id, event and data (retry is read past: the reader keeps its own pace). */
class EventStreamParser {
  private rest = '';
  private type = '';
  private data: string[] = [];
  private id = '';

  /** Text as it came, cut anywhere; the events it completed. */
  push(text: string): StreamEvent[] {
    const parts = (this.rest + text).split('\n');
    this.rest = parts.pop()!;
    const events: StreamEvent[] = [];
    for (const part of parts) {
      const field = part.endsWith('\r') ? part.slice(0, -1) : part;
      if (field === '') {
        if (this.data.length > 0)
          events.push({ type: this.type || 'message', data: this.data.join('\n'), id: this.id });
        this.type = '';
        this.data = [];
      } else if (!field.startsWith(':')) {
        this.take(field);
      }
    }
    return events;
  }

  private take(field: string): void {
    const colon = field.indexOf(':');
    const name = colon === -1 ? field : field.slice(0, colon);
    const value = colon === -1 ? '' : field.slice(colon + 1).replace(/^ /, '');
    if (name === 'event') this.type = value;
    else if (name === 'data') this.data.push(value);
    else if (name === 'id' && !value.includes('\0')) this.id = value;
  }
}
