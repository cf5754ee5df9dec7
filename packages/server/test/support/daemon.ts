// A daemon for tests: enrolls with its own Ed25519 key and signs its requests as DECISIONS.md
// says, written apart from @hub/cli's daemon so that each checks the other against the contract.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { call, type Answer } from './client.js';
import type { RunningHub } from './hub.js';

export interface SignOverrides {
  timestamp?: string;
  nonce?: string;
  signature?: string;
  daemonId?: string;
  /** Sign this body, but send `body`. */
  signedBody?: string;
  /** Sent besides the signature's (X-Forwarded-For, say). */
  headers?: Record<string, string>;
}

export class TestDaemon {
  private beating: NodeJS.Timeout | undefined;

  constructor(
    readonly hub: Pick<RunningHub, 'url'>,
    readonly id: string,
    readonly name: string,
    private readonly privateKey: KeyObject,
  ) {}

  /** Issues a token with `key`, enrolls under `name` with a new key pair. */
  static async enroll(
    hub: Pick<RunningHub, 'url'>,
    key: string,
    name: string,
    runtimes: { provider: string; modes?: string[]; models?: string[] }[] = [
      { provider: 'claude' },
      { provider: 'codex' },
    ],
    options: { replace?: boolean } = {},
  ): Promise<TestDaemon> {
    const token = await call(hub, 'POST', '/api/v1/daemons/enrollment-tokens', { token: key });
    if (token.status !== 201) throw new Error(`token: ${token.status} ${token.text}`);
    const pair = generateKeyPairSync('ed25519');
    const x = pair.publicKey.export({ format: 'jwk' }).x as string;
    const enrolled = await call(hub, 'POST', '/api/v1/daemons/enroll', {
      body: {
        token: token.body.token,
        name,
        publicKey: { kty: 'OKP', crv: 'Ed25519', x },
        runtimes,
        replace: options.replace,
      },
    });
    if (enrolled.status !== 201) throw new Error(`enroll: ${enrolled.status} ${enrolled.text}`);
    return new TestDaemon(hub, enrolled.body.daemonId, name, pair.privateKey);
  }

  /** The same daemon talking to another hub instance. */
  at(hub: Pick<RunningHub, 'url'>): TestDaemon {
    return new TestDaemon(hub, this.id, this.name, this.privateKey);
  }

  /** A signed request; `overrides` break one part of it on purpose. */
  async signed(method: string, pathWithQuery: string, body?: unknown, overrides: SignOverrides = {}): Promise<Answer> {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const timestamp = overrides.timestamp ?? String(Date.now());
    const nonce = overrides.nonce ?? randomBytes(18).toString('base64url');
    const signedBody = overrides.signedBody ?? raw;
    const digest = createHash('sha256').update(signedBody).digest('base64url');
    const message = `${method}\n${pathWithQuery}\n${timestamp}\n${nonce}\n${digest}`;
    const signature = overrides.signature ?? sign(null, Buffer.from(message), this.privateKey).toString('base64url');
    const headers = {
      ...overrides.headers,
      'hub-daemon': overrides.daemonId ?? this.id,
      'hub-timestamp': timestamp,
      'hub-nonce': nonce,
      'hub-signature': signature,
    };
    return call(this.hub, method, pathWithQuery, body === undefined ? { headers } : { headers, raw });
  }

  heartbeat(runtimes?: unknown[]): Promise<Answer> {
    return this.signed('POST', '/api/v1/daemon/heartbeat', runtimes === undefined ? {} : { runtimes });
  }

  /** Heartbeats every `everyMs` until `stop()`: the daemon stays online. */
  keepAlive(everyMs: number): this {
    this.stop();
    this.beating = setInterval(() => void this.heartbeat().catch(() => {}), everyMs);
    return this;
  }

  stop(): void {
    if (this.beating !== undefined) clearInterval(this.beating);
    this.beating = undefined;
  }

  next(waitS = 0): Promise<Answer> {
    return this.signed('GET', `/api/v1/daemon/assignments/next?wait=${waitS}`);
  }

  report(executionId: string, status: string, extra: { exitCode?: number; message?: string } = {}): Promise<Answer> {
    return this.signed('POST', `/api/v1/daemon/executions/${executionId}/status`, { status, ...extra });
  }
}
