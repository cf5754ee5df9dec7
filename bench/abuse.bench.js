// @ts-check
/**
 * `pnpm bench:abuse`: what clients without a credential, or with heavy documents, cost everyone
 * else. A victim client's `GET /api/v1/projects` (sequential, one keep-alive connection) is timed
 * alone, then while three clients post 14 MB bodies to `POST /api/v1/daemons/enroll` in a loop,
 * while three post 1 MiB dispatches with a wrong key in a loop, and while ten 1 MB documents of
 * 90,000 keys are validated at once; each row prints the victim's p50 and p99, its ratio to the
 * victim alone (measured in the same run), the flood's answers and the hub's peak RSS. Bounded
 * (about a minute and a half); prints; never fails on a missed target. See bench/README.md.
 *
 * HUB_BENCH_ROOT=<another checkout> runs that checkout's built hub instead (for a before/after).
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createDatabase } from './database.js';
import { startProcess } from './process.js';
import { check, cleanupOnExit, quantile, table } from './report.js';

/** Victim requests timed per row: for at least this long, and at least MIN_SAMPLES of them (at most MAX_ROW_MS). */
const ROW_MS = 8_000;
const MIN_SAMPLES = 30;
const MAX_ROW_MS = 60_000;
const FLOOD_CLIENTS = 3;
/** Unmeasured time for a flood to get going before the victim is timed. */
const FLOOD_SETTLE_MS = 1_000;
const ENROLL_BYTES = 14_000_000;
const DISPATCH_BYTES = 1024 * 1024;
const HEAVY_DOCUMENTS = 10;
/**
 * The floods' niceness (HUB_BENCH_FLOOD_NICE): a flooder on loopback takes CPU from the same two
 * cores as the hub and the victim, which a remote one does not; at 19 it gets what they leave, and
 * the victim's delay is what the hub's handling of the flood costs. 0 measures the shared machine.
 */
const FLOOD_NICE = Number(process.env.HUB_BENCH_FLOOD_NICE ?? 19);

const root = process.env.HUB_BENCH_ROOT ?? fileURLToPath(new URL('..', import.meta.url));

/** @typedef {{ statuses: Record<string, number>, requests: number }} FloodReport */

// A flood runs in a child process of its own (`--flood <kind> <url> <clients>`), so that writing
// its bodies never delays the victim's requests in this one.
if (process.argv[2] === '--flood') {
  await flood(
    /** @type {'enroll' | 'dispatch'} */ (process.argv[3]),
    /** @type {string} */ (process.argv[4]),
    Number(process.argv[5]),
  );
} else {
  await main();
}

/**
 * Posts bodies in a loop on `clients` connections (a new one each time, as a flooder would) until
 * told to stop; then reports how they were answered.
 * @param {'enroll' | 'dispatch'} kind
 * @param {string} url
 * @param {number} clients
 */
async function flood(kind, url, clients) {
  // First, so that the threads the process starts later inherit it (Linux sets it per thread).
  setPriority(FLOOD_NICE);
  // Valid JSON, so that a hub that parses before it checks parses all of it.
  const body =
    kind === 'enroll'
      ? jsonOfSize(ENROLL_BYTES, (pad) => ({
          token: pad,
          name: 'flood',
          publicKey: { kty: 'OKP', crv: 'Ed25519', x: 'A'.repeat(43) },
          runtimes: [{ provider: 'claude' }],
        }))
      : jsonOfSize(DISPATCH_BYTES, (pad) => ({
          projectSlug: 'app',
          trigger: 'go',
          actor: 'flood',
          deliveryKey: 'flood',
          input: pad,
        }));
  const path = kind === 'enroll' ? '/api/v1/daemons/enroll' : '/api/v1/manual-runs';
  /** @type {Record<string, string>} */
  const headers = { 'content-type': 'application/json' };
  if (kind === 'dispatch') headers.authorization = `Bearer hub_pk_${randomBytes(20).toString('hex')}`;
  let stopping = false;
  /** @type {FloodReport} */
  const report = { statuses: {}, requests: 0 };
  process.on('message', () => (stopping = true));
  const client = async () => {
    while (!stopping) {
      const outcome = await post(url + path, headers, body);
      report.statuses[outcome] = (report.statuses[outcome] ?? 0) + 1;
      report.requests++;
    }
  };
  process.send?.('started');
  await Promise.all(Array.from({ length: clients }, client));
  process.send?.(report);
  process.disconnect?.();
}

/**
 * A JSON body of exactly `bytes` bytes: `shape` with one string padded to fill it.
 * @param {number} bytes
 * @param {(pad: string) => unknown} shape
 */
function jsonOfSize(bytes, shape) {
  const empty = Buffer.byteLength(JSON.stringify(shape('')));
  const body = Buffer.from(JSON.stringify(shape('x'.repeat(bytes - empty))));
  check(body.length === bytes, `the flood's body is ${body.length} bytes, not ${bytes}`);
  return body;
}

/**
 * One POST on a connection of its own; resolves with its status, or the error that ended it (a
 * hub that answers before the body is sent and closes the connection ends the upload: EPIPE).
 * @param {string} url
 * @param {Record<string, string>} headers
 * @param {Buffer} body
 * @returns {Promise<string>}
 */
function post(url, headers, body) {
  return new Promise((resolve) => {
    let settled = false;
    const req = httpRequest(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(body.length) },
      agent: false,
    });
    const finish = (/** @type {string} */ outcome) => {
      if (settled) return;
      settled = true;
      req.destroy();
      resolve(outcome);
    };
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => finish(String(res.statusCode)));
      res.on('error', () => finish(String(res.statusCode)));
    });
    req.on('error', (error) => finish(/** @type {NodeJS.ErrnoException} */ (error).code ?? 'error'));
    req.end(body);
  });
}

async function main() {
  const startedAt = performance.now();
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-bench-abuse-'));
  const { cleanups, cleanUp, interrupted } = cleanupOnExit([() => rmSync(dataDir, { recursive: true, force: true })]);
  /** @type {{ output: () => string } | undefined} */
  let started;
  try {
    check(existsSync(join(root, 'packages/server/dist/main.js')), `no built hub in ${root} (pnpm build there first)`);
    const database = await createDatabase(cleanups);
    const adminToken = `hub_admin_bench_${randomBytes(16).toString('hex')}`;
    const hub = await startHub(dataDir, adminToken, database.url);
    started = hub;
    cleanups.push(hub.stop);

    const admin = { token: adminToken };
    await request(hub.url, 'POST', '/api/admin/v1/organizations', { ...admin, body: { slug: 'bench', name: 'Bench' } });
    await request(hub.url, 'POST', '/api/admin/v1/organizations/bench/projects', {
      ...admin,
      body: { slug: 'app', name: 'App' },
    });
    const key = await request(hub.url, 'POST', '/api/admin/v1/organizations/bench/api-keys', {
      ...admin,
      body: { name: 'bench', scopes: ['projects:read', 'configuration:validate', 'runs:dispatch'] },
    });
    const token = /** @type {string} */ (key.secret);

    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    cleanups.push(() => agent.destroy());
    const rss = rssSampler(/** @type {number} */ (hub.child.pid));
    cleanups.push(() => rss.stop());

    /** Times the victim's requests: for ROW_MS and at least MIN_SAMPLES of them (at most MAX_ROW_MS). */
    const victim = async () => {
      /** @type {number[]} */
      const samples = [];
      const start = performance.now();
      while (
        (performance.now() - start < ROW_MS || samples.length < MIN_SAMPLES) &&
        performance.now() - start < MAX_ROW_MS
      ) {
        const t0 = performance.now();
        const status = await get(hub.url, '/api/v1/projects', token, agent);
        samples.push(performance.now() - t0);
        check(status === 200, `the victim's GET /api/v1/projects answered ${status}`);
      }
      return samples.sort((a, b) => a - b);
    };

    // Warm-up, unmeasured: the hub's code paths and the victim's connection.
    for (let i = 0; i < 200; i++) check((await get(hub.url, '/api/v1/projects', token, agent)) === 200, 'warm-up');

    rss.reset();
    const alone = await victim();
    const aloneRss = rss.peak();
    const aloneCpu = rss.cpu();

    /** @type {{ name: string, samples: number[], rss: number, cpu: { hub: number, machine: number }, load: string }[]} */
    const rows = [];
    for (const kind of /** @type {const} */ (['enroll', 'dispatch'])) {
      const child = fork(fileURLToPath(import.meta.url), ['--flood', kind, hub.url, String(FLOOD_CLIENTS)], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      const stopped = new Promise((resolve) => child.on('exit', resolve));
      cleanups.push(async () => {
        if (child.exitCode === null) child.kill();
        await stopped;
      });
      /** @type {Promise<FloodReport>} */
      const report = new Promise((resolve) =>
        child.on('message', (message) => message !== 'started' && resolve(/** @type {FloodReport} */ (message))),
      );
      await new Promise((resolve) => child.once('message', resolve));
      await sleep(FLOOD_SETTLE_MS);
      rss.reset();
      const floodStart = performance.now();
      const samples = await victim();
      const seconds = (performance.now() - floodStart) / 1000;
      const peak = rss.peak();
      const cpu = rss.cpu();
      child.send('stop');
      const { statuses, requests } = await report;
      await stopped;
      const answers = Object.entries(statuses)
        .sort(([, a], [, b]) => b - a)
        .map(([status, n]) => `${n} ${status}`)
        .join(', ');
      const what =
        kind === 'enroll'
          ? `${FLOOD_CLIENTS} clients posting 14 MB to enroll`
          : `${FLOOD_CLIENTS} clients posting 1 MiB dispatches, wrong key`;
      rows.push({
        name: `victim, ${what}`,
        samples,
        rss: peak,
        cpu,
        load: `${(requests / seconds).toFixed(1)} req/s: ${answers}`,
      });
    }

    // Ten heavy documents at once (each valid JSON, 990,000 characters of 90,000 keys: a 422 once compiled).
    const heavy = Array.from({ length: 90_000 }, (_, i) => `k${String(i).padStart(6, '0')}: 1\n`).join('');
    rss.reset();
    const heavyStart = performance.now();
    const heavyAnswers = Promise.all(
      Array.from({ length: HEAVY_DOCUMENTS }, () =>
        call(hub.url, 'POST', '/api/v1/configurations/validate', {
          token,
          body: { projectSlug: 'app', yaml: heavy },
        }).then((answer) => ({ ...answer, at: performance.now() - heavyStart })),
      ),
    );
    const heavySamples = await victimWhile(heavyAnswers);
    const answered = await heavyAnswers;
    const heavyPeak = rss.peak();
    const heavyCpu = rss.cpu();
    /** @type {Record<string, number>} */
    const heavyStatuses = {};
    for (const { status } of answered) heavyStatuses[status] = (heavyStatuses[status] ?? 0) + 1;
    const lastMs = Math.max(...answered.map((answer) => answer.at));
    rows.push({
      name: `victim, ${HEAVY_DOCUMENTS} validates of 1 MB / 90,000 keys at once`,
      samples: heavySamples.sort((a, b) => a - b),
      rss: heavyPeak,
      cpu: heavyCpu,
      load: `${Object.entries(heavyStatuses)
        .map(([status, n]) => `${n} ${status}`)
        .join(', ')}; last answered after ${(lastMs / 1000).toFixed(1)} s`,
    });

    /** The victim, sequentially, until `done` settles. @param {Promise<unknown>} done */
    async function victimWhile(done) {
      let finished = false;
      void done.then(() => (finished = true));
      /** @type {number[]} */
      const samples = [];
      while (!finished) {
        const t0 = performance.now();
        const status = await get(hub.url, '/api/v1/projects', token, agent);
        samples.push(performance.now() - t0);
        check(status === 200, `the victim's GET /api/v1/projects answered ${status}`);
      }
      return samples;
    }

    const ms = (/** @type {number} */ value) => (Number.isFinite(value) ? value.toFixed(1) : '-');
    const p50Alone = quantile(alone, 0.5);
    const mb = (/** @type {number} */ bytes) => (bytes > 0 ? `${Math.round(bytes / 1024 / 1024)}` : '-');
    console.log(
      `Hub abuse benchmark: ${root === fileURLToPath(new URL('..', import.meta.url)) ? 'this checkout' : root}; floods at niceness ${FLOOD_NICE}; loopback, node ${process.version}, ${database.note}`,
    );
    console.log('');
    const percent = (/** @type {number} */ value) => (Number.isFinite(value) ? value.toFixed(0) : '-');
    console.log(
      table(
        [
          [
            'row',
            'n',
            'p50 ms',
            'p99 ms',
            'p50 ratio',
            'p99 ratio',
            'hub peak RSS MB',
            'hub CPU %',
            'machine CPU %',
            'flood',
          ],
          [
            'victim alone: sequential GET /api/v1/projects',
            alone.length,
            ms(p50Alone),
            ms(quantile(alone, 0.99)),
            '1.00',
            '1.00',
            mb(aloneRss),
            percent(aloneCpu.hub),
            percent(aloneCpu.machine),
            '',
          ],
          ...rows.map((row) => [
            row.name,
            row.samples.length,
            ms(quantile(row.samples, 0.5)),
            ms(quantile(row.samples, 0.99)),
            row.samples.length === 0 ? '-' : (quantile(row.samples, 0.5) / p50Alone).toFixed(2),
            row.samples.length === 0 ? '-' : (quantile(row.samples, 0.99) / quantile(alone, 0.99)).toFixed(2),
            mb(row.rss),
            percent(row.cpu.hub),
            percent(row.cpu.machine),
            row.load,
          ]),
        ],
        ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
      ),
    );
    console.log(
      '(hub CPU %: its process, all threads, 100 = one core; machine CPU %: all cores busy, the floods and the victim included)',
    );
    console.log('');
    for (const row of rows.slice(0, 2)) {
      const ratio = quantile(row.samples, 0.5) / p50Alone;
      console.log(`${row.name}: p50 ${ratio.toFixed(2)}x alone (target <= 2x: ${ratio <= 2 ? 'met' : 'MISSED'})`);
    }
    console.log(`(${((performance.now() - startedAt) / 1000).toFixed(0)} s)`);
  } catch (error) {
    if (interrupted()) await new Promise(() => {}); // the SIGINT handler cleans up and exits
    console.error(error);
    if (started !== undefined) console.error(`\nthe hub printed:\n${started.output().slice(-4000) || '(nothing)'}`);
    process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}

/**
 * Starts the hub of `root` and resolves once it listens; `stop()` sends SIGTERM and waits.
 * @param {string} dataDir
 * @param {string} adminToken
 * @param {string | undefined} databaseUrl
 */
function startHub(dataDir, adminToken, databaseUrl) {
  return startProcess(
    [join(root, 'packages/server/dist/main.js')],
    {
      PORT: '0',
      HUB_DATA_DIR: dataDir,
      HUB_ADMIN_TOKEN: adminToken,
      HUB_LOG_LEVEL: 'warn',
      ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
    },
    { cwd: root },
  );
}

/**
 * The hub's resident set size, sampled every 20 ms from /proc (Linux; elsewhere nothing is
 * measured and the figures print as "-"): `peak()` since the last `reset()`; and the CPU time the
 * hub (all its threads) and the whole machine spent since then, as a share of one core and of
 * all cores.
 * @param {number} pid
 */
function rssSampler(pid) {
  let peak = 0;
  /** @type {{ at: number, hub: number, busy: number, total: number } | undefined} */
  let since;
  const read = () => {
    try {
      const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      if (kb !== undefined) peak = Math.max(peak, Number(kb) * 1024);
    } catch {
      // not Linux, or the hub has gone
    }
  };
  /** CPU ticks: the hub's (user + system), and the machine's busy and total. */
  const ticks = () => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
      const total = cpu.reduce((sum, value) => sum + value, 0);
      const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
      return { at: performance.now(), hub: Number(fields[11]) + Number(fields[12]), busy: total - idle, total };
    } catch {
      return undefined;
    }
  };
  const timer = setInterval(read, 20);
  return {
    reset: () => {
      peak = 0;
      since = ticks();
      read();
    },
    peak: () => (read(), peak),
    /** Since `reset()`: the hub's CPU as % of one core (100 = one core busy), and the machine's busy %. */
    cpu: () => {
      const now = ticks();
      if (since === undefined || now === undefined || now.total === since.total)
        return { hub: Number.NaN, machine: Number.NaN };
      const seconds = (now.at - since.at) / 1000;
      // /proc counts in USER_HZ, 100 a second on Linux.
      return {
        hub: ((now.hub - since.hub) / 100 / seconds) * 100,
        machine: ((now.busy - since.busy) / (now.total - since.total)) * 100,
      };
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * A GET on the victim's keep-alive connection; resolves with the status once the body is read.
 * @param {string} url
 * @param {string} path
 * @param {string} token
 * @param {Agent} agent
 * @returns {Promise<number>}
 */
function get(url, path, token, agent) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url + path, { headers: { authorization: `Bearer ${token}` }, agent });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * @param {string} url
 * @param {string} method
 * @param {string} path
 * @param {{ token?: string, body?: unknown }} [options]
 * @returns {Promise<{ status: number, body: any }>}
 */
async function call(url, method, path, options = {}) {
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
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** Like `call`, but anything other than a 2xx is an error. @param {Parameters<typeof call>} args */
async function request(...args) {
  const answer = await call(...args);
  if (answer.status >= 300) throw new Error(`${args[1]} ${args[2]}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** @param {number} ms */
function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
