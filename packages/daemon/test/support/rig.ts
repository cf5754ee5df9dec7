// A real hub, a project whose configuration sends its steps to the daemon "dev-box", and the
// reference daemon run in this process (runDaemon) with a small Node script as its agent. The
// agent prints numbered lines and can stop at gates that the test opens, so that a test can
// change the network between two lines without waiting on the clock.
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { call, setUp, type Answer } from '../../../server/test/support/client.js';
import { hubOn } from '../../../server/test/support/hub.js';
import { HubClient, runDaemon, type HubError, type OutputLimits } from '../../src/index.js';

/** Prints `line N`, two characters of more than one byte and `pad` x's, for N = 1..lines; after each line in `gates`, waits for the test to open that gate. */
const AGENT = `import { existsSync, writeFileSync } from 'node:fs';
const env = process.env;
const gate = (n) => env.GATE_DIR + '/' + env.HUB_EXECUTION_ID + '-' + n;
writeFileSync(env.GATE_DIR + '/' + env.HUB_EXECUTION_ID + '.pid', String(process.pid));
const pad = 'x'.repeat(Number(env.HUB_INPUT_PAD));
const gates = new Set(env.HUB_INPUT_GATES.split(',').filter(Boolean).map(Number));
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
for (let n = 1; n <= Number(env.HUB_INPUT_LINES); n++) {
  process.stdout.write('line ' + n + ' é😀 ' + pad + '\\n');
  if (gates.has(n)) while (!existsSync(gate(n))) await wait(20);
}
if (env.HUB_INPUT_HOLD === 'yes') await wait(3_600_000);
process.exitCode = Number(env.HUB_INPUT_EXIT);
`;

const configuration = (cwd: string) => `
environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: ${JSON.stringify(cwd)} }
triggers:
  - name: talk
    on:
      manual.run:
        inputs:
          lines: { description: Lines to print, required: false, default: "3" }
          pad: { description: Characters after each line's number, required: false, default: "0" }
          gates: { description: Lines after which to wait for the test, required: false, default: "" }
          hold: { description: yes to keep running after the lines, required: false, default: "no" }
          exit: { description: Exit code, required: false, default: "0" }
    max_runtime: 1h
    filters: { from_users: [dev-lead] }
    steps:
      - { id: talk, environment: laptop, agent: { provider: node }, prompt: [ { text: "Talk." } ] }
`;

/** The line the agent prints for `n`, with its line end. */
export const line = (n: number, pad = 0) => `line ${n} é😀 ${'x'.repeat(pad)}\n`;

export interface Run {
  status: string;
  cancelRequestedAt: string | null;
  executions: { executionId: string; status: string; exitCode: number | null; message: string | null }[];
}

export interface RunningDaemon {
  logs: string[];
  /** Stops it as SIGTERM would, and resolves with what runDaemon answered. */
  stop(): Promise<{ refused?: HubError }>;
}

export type Rig = Awaited<ReturnType<typeof rig>>;

export async function rig() {
  const hub = await hubOn('embedded', { HUB_SWEEP_EVERY_MS: '200' });
  const ctx = await setUp(hub);
  const dir = mkdtempSync(join(tmpdir(), 'hub-daemon-rig-'));
  writeFileSync(join(dir, 'agent.mjs'), AGENT);
  let installed = false;
  let deliveries = 0;
  const running: RunningDaemon[] = [];

  const rigged = {
    hub,
    key: ctx.key,
    /** Enrolls a new dev-box (retiring the one before) and runs it against `origin` (the hub, or a proxy in front of it), once connected. */
    async daemon(
      origin: string,
      options: { concurrency?: number; outputLimits?: OutputLimits } = {},
    ): Promise<RunningDaemon> {
      const token = await call(hub, 'POST', '/api/v1/daemons/enrollment-tokens', { token: ctx.key });
      const { publicKey, privateKey } = generateKeyPairSync('ed25519');
      const jwk = { kty: 'OKP', crv: 'Ed25519', x: publicKey.export({ format: 'jwk' }).x as string } as const;
      const runtimes = [{ provider: 'node' }];
      const { daemonId } = await new HubClient(hub.url).enroll({
        token: token.body.token as string,
        name: 'dev-box',
        publicKey: jwk,
        runtimes,
        replace: true,
      });
      // The configuration names dev-box: it installs once one is enrolled.
      if (!installed) {
        const answer = await call(hub, 'POST', '/api/v1/configurations/install', {
          token: ctx.key,
          body: { projectSlug: ctx.project, yaml: configuration(dir) },
        });
        if (answer.status !== 201) throw new Error(`install: ${answer.status} ${answer.text}`);
        installed = true;
      }
      const logs: string[] = [];
      const stop = new AbortController();
      const done = runDaemon({
        client: new HubClient(origin, { daemonId, privateKey }),
        config: {
          concurrency: options.concurrency ?? 1,
          providers: new Map([
            ['node', { command: [process.execPath, join(dir, 'agent.mjs')], env: { GATE_DIR: dir } }],
          ]),
        },
        configFile: join(dir, 'daemon.yml'),
        signal: stop.signal,
        log: (message) => logs.push(message),
        output: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
        ...(options.outputLimits === undefined ? {} : { outputLimits: options.outputLimits }),
      });
      const daemon = {
        logs,
        stop: () => {
          stop.abort('received SIGTERM');
          return done;
        },
      };
      running.push(daemon);
      await until(
        'the daemon connected',
        () => logs.includes('Connected; waiting for assignments.'),
        () => logs.join('\n'),
      );
      return daemon;
    },

    /** Dispatches `talk` with `input` ("lines=40 gates=10"), as the hub answers it. */
    async tryDispatch(input: string): Promise<Answer> {
      const body = {
        projectSlug: ctx.project,
        trigger: 'talk',
        actor: 'dev-lead',
        deliveryKey: `rig-${Date.now()}-${++deliveries}`,
        input,
      };
      return call(hub, 'POST', '/api/v1/manual-runs', { token: ctx.key, body });
    },

    /** Dispatches `talk` with `input`; the run's id. */
    async dispatch(input: string): Promise<string> {
      const answer = await rigged.tryDispatch(input);
      if (answer.status !== 200) throw new Error(`dispatch: ${answer.status} ${answer.text}`);
      return answer.body.triggerRunId as string;
    },

    async run(runId: string): Promise<Run> {
      return (await call(hub, 'GET', `/api/v1/runs/${runId}`, { token: ctx.key })).body as Run;
    },

    /** The run, once `done` holds for it. */
    async runOnce(runId: string, done: (run: Run) => boolean, logs: () => string = () => ''): Promise<Run> {
      let run: Run | undefined;
      await until(
        `run ${runId}`,
        async () => done((run = await rigged.run(runId))),
        () => `${JSON.stringify(run)}\n${logs()}`,
      );
      return run as Run;
    },

    /** The execution's output as the hub answers it in text. */
    async output(executionId: string): Promise<string> {
      return (await call(hub, 'GET', `/api/v1/executions/${executionId}/output`, { token: ctx.key })).text;
    },

    /** The chunks the hub stored, in order. */
    async chunks(executionId: string): Promise<{ seq: number; stream: string; text: string }[]> {
      return hub.sql`select seq, stream, text from execution_output where execution_id = ${executionId} order by seq`;
    },

    ...agentFiles(dir),

    async close(): Promise<void> {
      await Promise.all(running.map((daemon) => daemon.stop()));
      await hub.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return rigged;
}

/** Waits until `condition` holds, checking every 50 ms; fails after 30 s with `context`. */
export async function until(
  what: string,
  condition: () => boolean | Promise<boolean>,
  context: () => string = () => '',
): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${context()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The files through which a test agent in `dir` is held and seen: its go-ahead after a line, its pid. */
export function agentFiles(dir: string) {
  return {
    /** Lets the agent of `executionId` go on after line `n`. */
    open(executionId: string, n: number): void {
      writeFileSync(join(dir, `${executionId}-${n}`), '');
    },

    /** The pid of the agent of `executionId`, once it has started. */
    async agentPid(executionId: string): Promise<number> {
      const file = join(dir, `${executionId}.pid`);
      await until(`the agent of ${executionId}`, () => existsSync(file));
      return Number(readFileSync(file, 'utf8'));
    },
  };
}
