// A stand-in for the hub's daemon API on a real HTTP server: it checks every signature on its
// own (not with the package's code) and records what the daemon sent, so that tests can run the
// real `hub` executable against it before the hub itself has these routes.
import { createHash, createPublicKey, randomUUID, verify, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  /** When the request arrived (Date.now()). */
  at: number;
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  /** For a long poll: the execution id of the assignment it was answered with. */
  delivered?: string;
}

type Answer = { status: number; body?: unknown };

export class FakeHub {
  readonly requests: Recorded[] = [];
  readonly statuses: { executionId: string; status: string; exitCode?: number; message?: string }[] = [];
  /** Each execution's output as stored: chunks by seq, a chunk sent again ignored, as the hub does. */
  readonly output = new Map<string, { seq: number; stream: string; text: string }[]>();
  /** Signed requests the hub refused, and why. */
  readonly refusals: string[] = [];
  /** How enrollment answers; by default 201 and the daemon is registered. */
  enrollAnswer: (body: Record<string, unknown>) => Answer | undefined = () => undefined;
  /** How a status report answers; by default 200. */
  statusAnswer: (executionId: string, body: Record<string, unknown>) => Answer = () => ({ status: 200, body: {} });
  /** When true, every signed request is refused with 401, as for a retired daemon. */
  retired = false;
  /** The longest wait honoured for a long poll, so that tests do not sit through 25 s of nothing. */
  maxWaitMs = 2_000;

  private readonly keys = new Map<string, KeyObject>();
  private readonly nonces = new Set<string>();
  private readonly queue: unknown[] = [];
  private readonly waiting = new Set<() => void>();
  private server: Server | undefined;
  private port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Listens on a free port the first time, and on the same port after `stop()`, as a restarted hub. */
  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.listen(this.port, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    for (const wake of this.waiting) wake();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  /** Offers `assignment` to the next long poll (or the one waiting). */
  assign(assignment: Record<string, unknown>): void {
    this.queue.push(assignment);
    for (const wake of this.waiting) wake();
  }

  /** Registers a daemon as enrollment would, for tests that sign with their own keys. */
  register(daemonId: string, x: string): void {
    this.keys.set(daemonId, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' }));
  }

  heartbeats(): Recorded[] {
    return this.requests.filter((request) => request.path === '/api/v1/daemon/heartbeat');
  }

  polls(): Recorded[] {
    return this.requests.filter((request) => request.path.startsWith('/api/v1/daemon/assignments/next'));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const body = raw.length === 0 ? undefined : (JSON.parse(raw.toString('utf8')) as Record<string, unknown>);
    const path = req.url ?? '';
    const recorded: Recorded = { at, method: req.method ?? '', path, headers: req.headers, body };
    this.requests.push(recorded);
    if (path === '/api/v1/daemons/enroll' && req.method === 'POST') return this.send(res, this.enroll(body ?? {}));
    const refusal = this.checkSignature(req, raw);
    if (refusal !== undefined) {
      this.refusals.push(refusal);
      return this.send(res, {
        status: 401,
        body: { title: 'Unauthorized', status: 401, detail: refusal, code: 'unauthorized' },
      });
    }
    if (path === '/api/v1/daemon/heartbeat' && req.method === 'POST')
      return this.send(res, { status: 200, body: { serverTime: new Date().toISOString() } });
    const next = /^\/api\/v1\/daemon\/assignments\/next\?wait=(\d+)&capacity=([01])$/.exec(path);
    if (next !== null && req.method === 'GET') {
      const answer = await this.nextAssignment(Math.min(Number(next[1]) * 1_000, this.maxWaitMs), next[2] === '1');
      recorded.delivered = (answer.body as { assignment?: { executionId: string } } | undefined)?.assignment
        ?.executionId;
      return this.send(res, answer);
    }
    const status = /^\/api\/v1\/daemon\/executions\/([^/]+)\/status$/.exec(path);
    if (status !== null && req.method === 'POST') {
      const executionId = decodeURIComponent(status[1] as string);
      const answer = this.statusAnswer(executionId, body ?? {});
      if (answer.status === 200) this.statuses.push({ executionId, ...(body as { status: string }) });
      return this.send(res, answer);
    }
    const output = /^\/api\/v1\/daemon\/executions\/([^/]+)\/output$/.exec(path);
    if (output !== null && req.method === 'POST')
      return this.send(res, this.appendOutput(decodeURIComponent(output[1] as string), body ?? {}));
    if (path === '/api/v1/daemon/offline' && req.method === 'POST') return this.send(res, { status: 204 });
    this.send(res, {
      status: 404,
      body: { title: 'Not Found', status: 404, detail: `No route ${req.method} ${path}`, code: 'not_found' },
    });
  }

  private enroll(body: Record<string, unknown>): Answer {
    const answer = this.enrollAnswer(body);
    if (answer !== undefined) return answer;
    const daemonId = randomUUID();
    this.register(daemonId, (body.publicKey as { x: string }).x);
    return { status: 201, body: { daemonId, name: body.name } };
  }

  /** The hub's rules (DECISIONS.md, Daemons), written out independently of the daemon's code. */
  private checkSignature(req: IncomingMessage, body: Buffer): string | undefined {
    const header = (name: string) => req.headers[name.toLowerCase()] as string | undefined;
    const daemonId = header('Hub-Daemon');
    const timestamp = header('Hub-Timestamp');
    const nonce = header('Hub-Nonce');
    const signature = header('Hub-Signature');
    if (daemonId === undefined || timestamp === undefined || nonce === undefined || signature === undefined)
      return 'missing signature headers';
    const key = this.keys.get(daemonId);
    if (key === undefined) return 'unknown daemon';
    if (this.retired) return 'retired daemon';
    if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() - Number(timestamp)) > 60_000) return 'timestamp outside 60 s';
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(nonce)) return 'malformed nonce';
    if (this.nonces.has(nonce)) return 'reused nonce';
    this.nonces.add(nonce);
    const digest = createHash('sha256').update(body).digest('base64url');
    const message = `${req.method}\n${req.url}\n${timestamp}\n${nonce}\n${digest}`;
    if (
      !/^[A-Za-z0-9_-]+$/.test(signature) ||
      !verify(null, Buffer.from(message), key, Buffer.from(signature, 'base64url'))
    )
      return 'bad signature';
    return undefined;
  }

  private appendOutput(executionId: string, body: Record<string, unknown>): Answer {
    const stored = this.output.get(executionId) ?? [];
    for (const chunk of body.chunks as { seq: number; stream: string; text: string }[]) {
      if (chunk.seq === stored.length) stored.push({ seq: chunk.seq, stream: chunk.stream, text: chunk.text });
    }
    this.output.set(executionId, stored);
    return { status: 200, body: { executionId, nextSeq: stored.length } };
  }

  /** Without capacity, the poll waits and answers nothing: this stand-in never cancels. */
  private async nextAssignment(waitMs: number, capacity: boolean): Promise<Answer> {
    if (!capacity) {
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      return { status: 204 };
    }
    if (this.queue.length === 0) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiting.delete(done);
          resolve();
        };
        const timer = setTimeout(done, waitMs);
        this.waiting.add(done);
      });
    }
    const assignment = this.queue.shift();
    return assignment === undefined ? { status: 204 } : { status: 200, body: { assignment } };
  }

  private send(res: ServerResponse, answer: Answer): void {
    if (res.destroyed) return;
    const problem = answer.status >= 400;
    res.writeHead(
      answer.status,
      answer.body === undefined ? {} : { 'content-type': problem ? 'application/problem+json' : 'application/json' },
    );
    res.end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
  }
}
