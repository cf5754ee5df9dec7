// Following a run against a scripted hub on a real HTTP server, for what a real hub does not do
// on demand: a stream dropped mid-step (resumed with Last-Event-ID, each chunk shown once), a
// chunk sent again, a hub answering 503 for a while, and Ctrl-C while a step is silent.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import type { Io } from '../src/command.js';

const RUN = '8f2a6c4e-1b3d-4e5f-9a7b-0c2d4e6f8a1b';
const FIRST = '11111111-1111-4111-8111-111111111111';
const SECOND = '22222222-2222-4222-8222-222222222222';
const KEY = 'hub_pk_scripted';

const execution = (executionId: string, stepId: string, status: string) => ({
  executionId,
  stepId,
  daemonId: '33333333-3333-4333-8333-333333333333',
  daemon: 'dev-box',
  status,
  exitCode: null,
  message: null,
  createdAt: '2026-01-01T12:00:00.000Z',
  startedAt: null,
  finishedAt: null,
});

const runWith = (status: string, executions: unknown[]) => ({
  triggerRunId: RUN,
  projectSlug: 'app',
  trigger: 'fix',
  actor: 'dev-lead',
  deliveryKey: 'k',
  status,
  inputs: {},
  createdAt: '2026-01-01T12:00:00.000Z',
  finishedAt: status === 'running' ? null : '2026-01-01T12:01:00.000Z',
  cancelRequestedAt: null,
  executions,
});

const output = (seq: number, text: string, stream = 'stdout') =>
  `id: ${seq}\nevent: output\ndata: ${JSON.stringify({ seq, stream, at: '2026-01-01T12:00:00.000Z', text })}\n\n`;
const end = (executionId: string, status: string, exitCode: number | null, message: string | null) =>
  `event: end\ndata: ${JSON.stringify({ executionId, status, exitCode, message })}\n\n`;

/** A hub of routes scripted by the test; every request is recorded with its Last-Event-ID. */
class ScriptedHub {
  readonly requests: { path: string; lastEventId: string | undefined; authorization: string | undefined }[] = [];
  private server: Server | undefined;

  constructor(private readonly route: (path: string, request: IncomingMessage, response: ServerResponse) => void) {}

  get url(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const path = request.url ?? '';
      this.requests.push({
        path,
        lastEventId: request.headers['last-event-id'] as string | undefined,
        authorization: request.headers.authorization,
      });
      this.route(path, request, response);
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    this.server?.close();
  }
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function events(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.write('retry: 20\n\n');
}

/** `hub` in this process, with standard output and error captured and a stop signal the test controls. */
function inProcess(): { io: Io; stdout: () => string; stderr: () => string; interrupt: () => void } {
  const stop = new AbortController();
  let stdout = '';
  let stderr = '';
  const out = new PassThrough();
  const err = new PassThrough();
  out.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  err.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return {
    io: {
      env: { HUB_API_KEY: KEY, HUB_CONFIG_DIR: '/nonexistent' },
      stdin: new PassThrough(),
      stdout: out,
      stderr: err,
      stopSignal: () => stop.signal,
    },
    stdout: () => stdout,
    stderr: () => stderr,
    interrupt: () => stop.abort('received SIGINT'),
  };
}

let hub: ScriptedHub | undefined;
afterEach(async () => hub?.stop());

describe('following a run', () => {
  it('resumes a dropped stream after the last chunk, shows a chunk sent again once, waits out a 503, and goes on to the next step', async () => {
    let firstConnections = 0;
    let runAnswers = 0;
    hub = new ScriptedHub((path, _request, response) => {
      if (path === `/api/v1/runs/${RUN}`) {
        runAnswers += 1;
        if (runAnswers === 2)
          return json(response, 503, { title: 'Service Unavailable', status: 503, detail: 'restarting' });
        if (firstConnections < 2)
          return json(response, 200, runWith('running', [execution(FIRST, 'first', 'running')]));
        return json(
          response,
          200,
          runWith('failed', [execution(FIRST, 'first', 'succeeded'), execution(SECOND, 'second', 'failed')]),
        );
      }
      if (path === `/api/v1/runs/${RUN}/executions/${FIRST}/output`) {
        firstConnections += 1;
        events(response);
        if (firstConnections === 1) {
          // Cut off mid-event, without the end of the chunked body: a dropped connection.
          response.write(output(0, 'line 0\n') + output(1, 'line 1\n') + output(2, 'line 2\n').slice(0, 30), () =>
            response.socket?.end(),
          );
          return;
        }
        response.end(
          output(1, 'line 1\n') +
            output(2, 'line 2\n') +
            ': keep-alive\n\n' +
            output(3, 'boom\n', 'stderr') +
            end(FIRST, 'succeeded', 0, null),
        );
        return;
      }
      if (path === `/api/v1/runs/${RUN}/executions/${SECOND}/output`) {
        events(response);
        response.end(
          output(0, 'no newline') +
            `event: cut\ndata: {"bytes":42}\n\n` +
            end(SECOND, 'failed', 3, 'sh exited with code 3.'),
        );
        return;
      }
      json(response, 404, { title: 'Not Found', status: 404 });
    });
    await hub.start();
    const cli = inProcess();

    const code = await runCli(['logs', RUN, hub.url, '--follow'], cli.io);

    expect(code).toBe(1);
    expect(cli.stdout()).toBe('line 0\nline 1\nline 2\nboom\nno newline');
    const streams = hub.requests.filter((request) => request.path.endsWith(`${FIRST}/output`));
    expect(streams.map((request) => request.lastEventId)).toEqual([undefined, '1']);
    expect(hub.requests.every((request) => request.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(cli.stderr().split('\n')).toEqual([
      `==> step first on daemon dev-box (execution ${FIRST})`,
      expect.stringMatching(
        /^hub: lost the connection to the hub at http:\S+: .+; trying again and resuming where it stopped \(Ctrl-C stops following; the run goes on\)\.$/,
      ),
      '==> step first succeeded, exit code 0',
      `hub: Service Unavailable: restarting (HTTP 503 Service Unavailable); trying again and resuming where it stopped (Ctrl-C stops following; the run goes on).`,
      `==> step second on daemon dev-box (execution ${SECOND})`,
      '',
      "==> 42 bytes of output cut here by the hub (it keeps the first and the last 5 MiB of a step's output)",
      '==> step second failed, exit code 3: sh exited with code 3.',
      `Run ${RUN} failed.`,
      '',
    ]);
  });

  it('stops following on Ctrl-C, exits 130 and says how to cancel, without cancelling', async () => {
    hub = new ScriptedHub((path, _request, response) => {
      if (path === `/api/v1/runs/${RUN}`)
        return json(response, 200, runWith('running', [execution(FIRST, 'first', 'running')]));
      if (path.endsWith('/output')) {
        events(response);
        response.write(output(0, 'working\n'));
        return;
      }
      json(response, 404, { title: 'Not Found', status: 404 });
    });
    await hub.start();
    const cli = inProcess();

    const following = runCli(['logs', RUN, hub.url, '--follow'], cli.io);
    while (!cli.stdout().includes('working\n')) await new Promise((resolve) => setTimeout(resolve, 10));
    cli.interrupt();

    expect(await following).toBe(130);
    expect(cli.stderr()).toMatch(
      new RegExp(`Stopped following run ${RUN}; the run goes on\\. To cancel it: hub cancel ${RUN} ${hub.url}\\n$`),
    );
    expect(hub.requests.some((request) => request.path.endsWith('/cancel'))).toBe(false);
  });

  it('stops at a refusal that asking again cannot mend, with the problem', async () => {
    hub = new ScriptedHub((_path, _request, response) =>
      response
        .writeHead(404, { 'content-type': 'application/problem+json' })
        .end(
          JSON.stringify({ title: 'Run not found', status: 404, code: 'run_not_found', detail: 'No run has this id.' }),
        ),
    );
    await hub.start();
    const cli = inProcess();
    expect(await runCli(['logs', RUN, hub.url, '--follow'], cli.io)).toBe(1);
    expect(cli.stderr()).toBe('hub: Run not found: No run has this id. (HTTP 404 Not Found, run_not_found)\n');
  });
});
