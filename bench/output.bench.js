// @ts-check
/**
 * `pnpm bench:output`: an agent's output on its way to a person, end to end across two hub
 * instances on one PostgreSQL. The reference daemon (`hub daemon run`) long-polls hub 1 and runs
 * a stand-in agent that prints numbered, timestamped lines, first at a steady rate, then as fast
 * as it can; a Server-Sent Events reader on hub 2 receives them. It prints the delay from a line's
 * printing to its receipt (p50, p99), lines per second in the burst, whether every line came once
 * and in order, and, in the same run, the bare assignment wake-up across the two instances as the
 * baseline. Bounded (about a minute); never fails on a missed target. See bench/README.md.
 */
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { HubClient } from '../packages/daemon/dist/index.js';
import { createDatabase } from './database.js';
import { stopperOf } from './process.js';
import { check, cleanupOnExit, quantile, table } from './report.js';

/** Lines per second of the steady part, and for how long. */
const RATE = Number(process.env.HUB_BENCH_OUTPUT_RATE || 20);
const STEADY_S = Number(process.env.HUB_BENCH_OUTPUT_STEADY_S || 15);
/** The steady lines printed first, not measured: the first requests of a fresh daemon and hubs. */
const STEADY_WARMUP = RATE;
/**
 * Then lines each this long after the one before: longer than the daemon's batching interval
 * (250 ms), so that each goes to the hub at once; what the output costs without the wait.
 */
const LONE = 40;
const LONE_GAP_MS = 300;
/** Lines printed back to back at the end. */
const BURST = Number(process.env.HUB_BENCH_OUTPUT_BURST || 50_000);
/** Wake-up rounds of the baseline, after WAKEUP_WARMUP unmeasured ones (as bench:dispatch). */
const WAKEUP_N = 200;
const WAKEUP_WARMUP = 20;
/** How long a long-poll is given to reach its wait before its dispatch (as bench:dispatch). */
const POLL_SETTLE_MS = 25;
const HEARTBEAT_MS = 5_000;
/** The issue's target for the steady delay across two instances. */
const TARGET_P99_MS = 250;

const root = new URL('..', import.meta.url).pathname;
const cli = join(root, 'packages/cli/dist/main.js');

/**
 * The stand-in agent: waits for the go file (the reader is listening by then), then prints
 * `<number> <Unix ms when printed>` lines, one write each (synchronous on a pipe on Linux):
 * BENCH_STEADY lines at BENCH_RATE a second, BENCH_LONE lines BENCH_LONE_GAP_MS apart (with twice
 * that before the first, so that the last steady batch has left, and after the last, so that it
 * does not share a batch with the burst), then BENCH_BURST back to back. A steady line comes at a
 * random moment of its own 1/BENCH_RATE s slot: on a fixed schedule, 50 ms lines would keep one
 * phase against the daemon's 250 ms batches, and the delay would be that phase's.
 */
const AGENT = `import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
const { BENCH_GO, BENCH_RATE, BENCH_STEADY, BENCH_LONE, BENCH_LONE_GAP_MS, BENCH_BURST } = process.env;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const print = (n) => process.stdout.write(n + ' ' + now().toFixed(3) + '\\n');
while (!existsSync(BENCH_GO)) await sleep(5);
const steady = Number(BENCH_STEADY);
const start = now();
for (let n = 0; n < steady; n++) {
  const wait = start + ((n + Math.random()) * 1000) / Number(BENCH_RATE) - now();
  if (wait > 0) await sleep(wait);
  print(n);
}
const lone = steady + Number(BENCH_LONE);
const gap = Number(BENCH_LONE_GAP_MS);
await sleep(gap);
for (let n = steady; n < lone; n++) {
  await sleep(gap);
  print(n);
}
await sleep(gap);
for (let n = lone; n < lone + Number(BENCH_BURST); n++) print(n);
`;

/** @param {string} workDir */
const configuration = (workDir) => `
environments:
  - { name: output, kind: daemon, daemon: output-box, cwd: ${JSON.stringify(workDir)} }
  - { name: latency, kind: daemon, daemon: latency-box, cwd: /tmp/bench }
triggers:
  - name: chatty
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [bench-bot] }
    steps:
      - { id: talk, environment: output, agent: { provider: claude }, prompt: [ { text: "Talk. {{ prompt }}" } ] }
  - name: ping
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [bench-bot] }
    steps:
      - { id: go, environment: latency, agent: { provider: claude }, prompt: [ { text: "Ping. {{ prompt }}" } ] }
`;

const now = () => performance.timeOrigin + performance.now();
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the bench started, for their logs if it fails. @type {{ name: string, child: import('node:child_process').ChildProcess, log: string }[]} */
const processes = [];

/** The end of a log file, for an error message. @param {string} log */
const tail = (log) => readFileSync(log, 'utf8').slice(-4000) || '(nothing)';

/**
 * Starts `node args` with its output in the file `log` (nothing for the bench to drain while it
 * times), and resolves once the log matches `ready`, with the match; `stop()` sends SIGTERM and
 * waits for the exit (SIGKILL after 15 s). A process that does not get ready is stopped.
 * @param {string} name
 * @param {string[]} args
 * @param {Record<string, string>} env
 * @param {string} log
 * @param {RegExp} ready
 * @returns {Promise<{ match: RegExpExecArray, stop: () => Promise<void> }>}
 */
async function startProcess(name, args, env, log, ready) {
  const fd = openSync(log, 'a');
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/nonexistent', ...env },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const stop = stopperOf(child);
  processes.push({ name, child, log });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const match = ready.exec(readFileSync(log, 'utf8'));
    if (match) return { match, stop };
    const exited = child.exitCode !== null || child.signalCode !== null;
    if (exited || Date.now() > deadline) {
      await stop();
      throw new Error(
        `${name} ${exited ? `exited with ${child.exitCode ?? child.signalCode}` : `did not print ${ready} within 60 s`}:\n${tail(log)}`,
      );
    }
    await sleep(20);
  }
}

/**
 * Runs the CLI to its end with `input` on standard input; anything but exit 0 is an error.
 * @param {string[]} args
 * @param {Record<string, string>} env
 * @param {string} input
 */
async function hubCommand(args, env, input) {
  const child = spawn(process.execPath, [cli, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/nonexistent', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  child.stdin.end(input);
  const code = await new Promise((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`hub ${args.join(' ')} exited with ${code}:\n${output}`);
}

/**
 * A JSON request; anything but a 2xx is an error.
 * @param {string} url
 * @param {string} method
 * @param {string} path
 * @param {{ token?: string, body?: unknown }} [options]
 * @returns {Promise<any>}
 */
async function request(url, method, path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url + path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url}${path}: ${response.status} ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

/**
 * The baseline, as bench:dispatch times it: sequential dispatches on `dispatchUrl`, each once the
 * signed long-poll of `daemon` is waiting; ms from the dispatch's answer to the long-poll's (0
 * when the assignment came first). Each assignment is reported running, then succeeded.
 * @param {HubClient} daemon
 * @param {string} dispatchUrl
 * @param {string} token
 */
async function wakeups(daemon, dispatchUrl, token) {
  const delays = [];
  for (let round = 0; round < WAKEUP_WARMUP + WAKEUP_N; round++) {
    const poll = daemon.nextAssignment(30, 1).then((answer) => ({ answer, at: performance.now() }));
    await sleep(POLL_SETTLE_MS);
    const run = await request(dispatchUrl, 'POST', '/api/v1/manual-runs', { token, body: dispatchBody('ping') });
    const responded = performance.now();
    const { answer, at } = await poll;
    const { assignment } = answer;
    check(
      assignment !== undefined && assignment.triggerRunId === run.triggerRunId,
      `the long-poll answered ${JSON.stringify(answer)}, not run ${run.triggerRunId}`,
    );
    await daemon.reportStatus(assignment.executionId, { status: 'running' });
    await daemon.reportStatus(assignment.executionId, { status: 'succeeded', exitCode: 0 });
    if (round >= WAKEUP_WARMUP) delays.push(Math.max(0, at - responded));
  }
  return delays.sort((a, b) => a - b);
}

/** @param {string} trigger */
const dispatchBody = (trigger) => ({
  projectSlug: 'app',
  trigger,
  actor: 'bench-bot',
  deliveryKey: `${trigger}-${randomBytes(8).toString('hex')}`,
  input: 'go',
});

/**
 * @typedef {{ seq: number, stream: string, at: string, text: string, received: number }} Received
 * @typedef {{ events: Received[], end: any, other: string[] }} Stream
 */

/**
 * Reads an execution's output as Server-Sent Events until its `end` event: each `output` event
 * with the moment its bytes were read (Unix ms). Resolves `listening` once the stream's first
 * bytes came (the hub watches for new output before it sends any). Events are read as the hub
 * writes them: LF line ends, `event:` and `data:` lines (one data line each), `id:`, comments.
 * @param {string} url
 * @param {string} executionId
 * @param {string} token
 */
function follow(url, executionId, token) {
  /** @type {(value?: unknown) => void} */
  let listening = () => {};
  const started = new Promise((resolve) => (listening = resolve));
  const done = (async () => {
    const response = await fetch(`${url}/api/v1/executions/${executionId}/output`, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
    });
    if (!response.ok || response.body === null)
      throw new Error(`the output stream answered ${response.status} ${await response.text()}`);
    /** @type {Stream} */
    const stream = { events: [], end: undefined, other: [] };
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const bytes of /** @type {AsyncIterable<Uint8Array>} */ (/** @type {unknown} */ (response.body))) {
      const received = now();
      listening();
      buffer += decoder.decode(bytes, { stream: true });
      let end;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = new Map(
          block
            .split('\n')
            .filter((line) => !line.startsWith(':'))
            .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trimStart()]),
        );
        const event = fields.get('event');
        if (event === 'output') stream.events.push({ ...JSON.parse(fields.get('data') ?? ''), received });
        else if (event === 'end') stream.end = JSON.parse(fields.get('data') ?? '');
        else if (event !== undefined) stream.other.push(block);
      }
      if (stream.end !== undefined) break;
    }
    return stream;
  })();
  return { listening: Promise.race([started, done]), done };
}

/**
 * The lines in the events, with when each was printed and received, and what was wrong: a seq
 * missing, twice or out of order, lines missing, twice or out of order, anything not a line of
 * the agent.
 * @param {Stream} stream
 * @param {number} total
 */
function linesOf(stream, total) {
  /** @type {string[]} */
  const problems = [];
  const say = (/** @type {string} */ problem) => problems.length < 5 && problems.push(problem);
  stream.events.forEach((event, index) => event.seq !== index && say(`event ${index} has seq ${event.seq}`));
  if (stream.other.length > 0) say(`unexpected events: ${stream.other.slice(0, 2).join(' | ')}`);
  /** @type {{ n: number, printed: number, read: number, received: number }[]} */
  const lines = [];
  let partial = '';
  for (const event of stream.events) {
    if (event.stream !== 'stdout')
      say(`${event.stream} chunk ${event.seq}: ${JSON.stringify(event.text.slice(0, 200))}`);
    const text = partial + event.text;
    const parts = text.split('\n');
    partial = parts.pop() ?? '';
    for (const part of parts) {
      const match = /^(\d+) (\d+\.\d+)$/.exec(part);
      if (match === null) say(`not a line of the agent: ${JSON.stringify(part.slice(0, 200))}`);
      else
        lines.push({
          n: Number(match[1]),
          printed: Number(match[2]),
          read: Date.parse(event.at),
          received: event.received,
        });
    }
  }
  if (partial !== '') say(`an unfinished line at the end: ${JSON.stringify(partial.slice(0, 200))}`);
  lines.forEach((line, index) => line.n !== index && say(`line ${index} of the stream is the agent's line ${line.n}`));
  if (lines.length !== total) say(`${lines.length} lines received, ${total} printed`);
  return { lines, problems };
}

const startedAt = performance.now();
const dir = mkdtempSync(join(tmpdir(), 'hub-bench-output-'));
const adminToken = `hub_admin_bench_${randomBytes(16).toString('hex')}`;
/** What the bench started, cleaned up at the end or on Ctrl-C. */
const { cleanups, cleanUp, interrupted } = cleanupOnExit([async () => rmSync(dir, { recursive: true, force: true })]);

try {
  // Lines of about 25 bytes: well inside the 5 MiB the hub keeps uncut.
  check(
    RATE * STEADY_S + LONE + BURST <= 100_000,
    'at most 100,000 lines (HUB_BENCH_OUTPUT_BURST), so that the hub keeps all of them',
  );
  const database = await createDatabase(cleanups);
  /** @param {string} name */
  const startHub = async (name) => {
    const dataDir = join(dir, name);
    mkdirSync(dataDir);
    const env = {
      PORT: '0',
      HUB_DATA_DIR: dataDir,
      HUB_ADMIN_TOKEN: adminToken,
      HUB_LOG_LEVEL: 'warn',
      ...(database.url === undefined ? {} : { DATABASE_URL: database.url }),
    };
    const hub = await startProcess(
      name,
      ['packages/server/dist/main.js'],
      env,
      join(dir, `${name}.log`),
      /listening on (http:\/\/\S+)/i,
    );
    cleanups.push(hub.stop);
    return /** @type {string} */ (hub.match[1]);
  };
  const hub1 = await startHub('hub-1');
  // The reader's instance; without the machine's PostgreSQL, the same one.
  const hub2 = database.url === undefined ? hub1 : await startHub('hub-2');

  // An organization, a project, a key; the configuration whose triggers name the two daemons.
  const admin = { token: adminToken };
  await request(hub1, 'POST', '/api/admin/v1/organizations', { ...admin, body: { slug: 'bench', name: 'Bench' } });
  await request(hub1, 'POST', '/api/admin/v1/organizations/bench/projects', {
    ...admin,
    body: { slug: 'app', name: 'App' },
  });
  const key = await request(hub1, 'POST', '/api/admin/v1/organizations/bench/api-keys', {
    ...admin,
    body: {
      name: 'bench',
      scopes: ['runs:dispatch', 'configuration:install', 'daemons:enroll', 'projects:read', 'runs:read'],
    },
  });
  const token = key.secret;
  const work = join(dir, 'work');
  mkdirSync(work);

  // The reference daemon, enrolled and run by the CLI as a user would, on hub 1.
  const agent = join(dir, 'agent.mjs');
  const go = join(dir, 'go');
  writeFileSync(agent, AGENT);
  const daemonConfig = join(dir, 'daemon.yml');
  const steadyLines = RATE * STEADY_S;
  const agentEnv = {
    BENCH_GO: go,
    BENCH_RATE: String(RATE),
    BENCH_STEADY: String(steadyLines),
    BENCH_LONE: String(LONE),
    BENCH_LONE_GAP_MS: String(LONE_GAP_MS),
    BENCH_BURST: String(BURST),
  };
  writeFileSync(
    daemonConfig,
    `providers:\n  claude:\n    command: ${JSON.stringify([process.execPath, agent])}\n    env: ${JSON.stringify(agentEnv)}\n`,
  );
  const cliEnv = { HUB_CONFIG_DIR: join(dir, 'config') };
  const enrollment = await request(hub1, 'POST', '/api/v1/daemons/enrollment-tokens', { token });
  await hubCommand(
    ['daemon', 'enroll', hub1, '--name', 'output-box', '--config', daemonConfig],
    cliEnv,
    `${enrollment.token}\n`,
  );
  const daemon = await startProcess(
    'hub daemon run',
    [cli, 'daemon', 'run', hub1, '--config', daemonConfig],
    cliEnv,
    join(dir, 'daemon.log'),
    /Connected; waiting for assignments\./,
  );
  cleanups.push(daemon.stop);

  // The baseline's daemon: the bench itself, signing with @hub/daemon's client, long-polling hub 2.
  const pair = generateKeyPairSync('ed25519');
  const latencyToken = await request(hub1, 'POST', '/api/v1/daemons/enrollment-tokens', { token });
  const enrolled = await new HubClient(hub2).enroll({
    token: latencyToken.token,
    name: 'latency-box',
    publicKey: /** @type {any} */ (pair.publicKey.export({ format: 'jwk' })),
    runtimes: [{ provider: 'claude' }],
  });
  const latencyBox = new HubClient(hub2, { daemonId: enrolled.daemonId, privateKey: pair.privateKey });
  await latencyBox.heartbeat([{ provider: 'claude' }]);
  const beating = setInterval(() => void latencyBox.heartbeat([{ provider: 'claude' }]).catch(() => {}), HEARTBEAT_MS);
  cleanups.push(async () => clearInterval(beating));
  await request(hub1, 'POST', '/api/v1/configurations/install', {
    token,
    body: { projectSlug: 'app', yaml: configuration(work) },
  });

  // The baseline: dispatch on hub 1, the signed long-poll on hub 2 answers.
  const wakeup = await wakeups(latencyBox, hub1, token);

  // The output: dispatched on hub 1 (shape A answers the execution), read live on hub 2; the
  // agent starts printing once the reader's stream is open.
  const dispatched = await request(hub1, 'POST', '/api/manual-runs', { token, body: dispatchBody('chatty') });
  const reader = follow(hub2, dispatched.executionId, token);
  await reader.listening;
  writeFileSync(go, '');
  const stream = await reader.done;
  const total = steadyLines + LONE + BURST;
  const { lines, problems } = linesOf(stream, total);
  if (stream.end?.status !== 'succeeded') problems.push(`the execution ended ${JSON.stringify(stream.end)}`);

  const sorted = (/** @type {number[]} */ values) => values.sort((a, b) => a - b);
  const steady = lines.filter((line) => line.n >= STEADY_WARMUP && line.n < steadyLines);
  const lone = lines.filter((line) => line.n >= steadyLines && line.n < steadyLines + LONE);
  const burst = lines.filter((line) => line.n >= steadyLines + LONE);
  const delays = sorted(steady.map((line) => line.received - line.printed));
  const toDaemon = sorted(steady.map((line) => line.read - line.printed));
  const fromDaemon = sorted(steady.map((line) => line.received - line.read));
  // Lines that came in one read of the stream came in one batch of the daemon (one request, one
  // query of the hub): the newest line of each waited least for its batch, so its time from the
  // daemon to the reader is about the time after the batch left (plus at most one line's interval).
  const loneDelays = sorted(lone.map((line) => line.received - line.printed));
  const burstDelays = sorted(burst.map((line) => line.received - line.printed));
  const firstPrinted = burst[0]?.printed ?? NaN;
  const burstSeconds = ((burst.at(-1)?.received ?? NaN) - firstPrinted) / 1_000;
  const printSeconds = ((burst.at(-1)?.printed ?? NaN) - firstPrinted) / 1_000;

  const ms = (/** @type {number} */ value) => value.toFixed(1);
  const row = (/** @type {string} */ what, /** @type {number[]} */ values) => [
    what,
    values.length,
    ms(quantile(values, 0.5)),
    ms(quantile(values, 0.99)),
    ms(values.at(-1) ?? NaN),
  ];
  const where = database.url === undefined ? 'one instance' : 'hub 1 -> hub 2';
  console.log(
    `Hub output benchmark: the reference daemon on hub 1, an SSE reader on ${database.url === undefined ? 'hub 1 too' : 'hub 2'}; ${RATE} lines/s for ${STEADY_S} s (the first ${STEADY_WARMUP} not measured), ${LONE} lines ${LONE_GAP_MS} ms apart, then ${BURST} lines back to back; ${WAKEUP_N} wake-ups after ${WAKEUP_WARMUP} unmeasured; loopback, node ${process.version}, ${database.note}`,
  );
  console.log('');
  console.log(
    table(
      [
        ['delay, ms', 'n', 'p50', 'p99', 'max'],
        row(`steady ${RATE}/s: printed -> received (${where})`, delays),
        row('  printed -> read by the daemon (its `at`, ms)', toDaemon),
        row('  read by the daemon -> received', fromDaemon),
        row(`lone lines, ${LONE_GAP_MS} ms apart: printed -> received`, loneDelays),
        row(`burst: printed -> received`, burstDelays),
        row(`baseline: dispatch answered -> long-poll answered (${where})`, wakeup),
      ],
      ['l', 'r', 'r', 'r', 'r'],
    ),
  );
  console.log('');
  const steady99 = quantile(delays, 0.99);
  console.log(
    `burst: ${burst.length} lines in ${burstSeconds.toFixed(2)} s from the first printed to the last received: ${(burst.length / burstSeconds).toFixed(0)} lines/s end to end (the agent printed them in ${printSeconds.toFixed(2)} s)`,
  );
  const overWakeup = (/** @type {number[]} */ values) =>
    `p50 ${(quantile(values, 0.5) / quantile(wakeup, 0.5)).toFixed(1)}x, p99 ${(quantile(values, 0.99) / quantile(wakeup, 0.99)).toFixed(1)}x`;
  console.log(`delay / wake-up: steady ${overWakeup(delays)}; lone lines ${overWakeup(loneDelays)}`);
  console.log(
    `steady delay p99 ${ms(steady99)} ms (target < ${TARGET_P99_MS} ms across two instances: ${database.url === undefined ? 'not measured, one instance' : steady99 < TARGET_P99_MS ? 'met' : 'MISSED'})`,
  );
  console.log(
    problems.length === 0
      ? `correctness: all ${total} lines received exactly once, in order, in seq 0..${stream.events.length - 1}; ended ${stream.end.status}`
      : `correctness: WRONG: ${problems.join('; ')}`,
  );
  console.log(`(${((performance.now() - startedAt) / 1000).toFixed(0)} s)`);
} catch (error) {
  if (interrupted()) await new Promise(() => {}); // the SIGINT handler cleans up and exits
  console.error(error);
  for (const { name, child, log } of processes) {
    const state =
      child.exitCode === null && child.signalCode === null
        ? 'running'
        : `exited (${child.exitCode ?? child.signalCode})`;
    console.error(`\n${name}, ${state}, printed:\n${tail(log)}`);
  }
  process.exitCode = 1;
} finally {
  await cleanUp();
}
