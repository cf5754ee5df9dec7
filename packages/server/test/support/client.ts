// A small HTTP client for tests: real requests to a real hub.
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'vitest';
import type { RunningHub } from './hub.js';

export interface Answer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON from the wire
  text: string;
}

export async function call(
  hub: Pick<RunningHub, 'url'>,
  method: string,
  path: string,
  options: {
    token?: string;
    body?: unknown;
    raw?: string;
    contentType?: string;
    headers?: Record<string, string>;
    /** Aborts the request (a client's patience: AbortSignal.timeout). */
    signal?: AbortSignal;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const response = await fetch(`${hub.url}${path}`, { method, headers, body, signal: options.signal });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** An organization, a project and a key with the given scopes, through the operator API. */
export async function setUp(
  hub: Pick<RunningHub, 'url' | 'adminToken'>,
  options: { org?: string; project?: string; scopes?: string[] } = {},
): Promise<{ org: string; project: string; key: string; keyId: string }> {
  const org = options.org ?? `org-${Math.random().toString(36).slice(2, 10)}`;
  const project = options.project ?? 'app';
  const admin = { token: hub.adminToken };
  expect200s(await call(hub, 'POST', '/api/admin/v1/organizations', { ...admin, body: { slug: org, name: org } }));
  expect200s(
    await call(hub, 'POST', `/api/admin/v1/organizations/${org}/projects`, {
      ...admin,
      body: { slug: project, name: project },
    }),
  );
  const key = await call(hub, 'POST', `/api/admin/v1/organizations/${org}/api-keys`, {
    ...admin,
    body: {
      name: 'test',
      scopes: options.scopes ?? [
        'projects:read',
        'configuration:validate',
        'configuration:install',
        'daemons:enroll',
        'runs:dispatch',
        'runs:read',
      ],
    },
  });
  expect200s(key);
  return { org, project, key: key.body.secret as string, keyId: key.body.id as string };
}

function expect200s(answer: Answer): void {
  if (answer.status >= 300) throw new Error(`setup failed: ${answer.status} ${answer.text}`);
}

/** A daemon's public key as enrollment takes it: an Ed25519 JWK. */
export function publicKey(): { kty: 'OKP'; crv: 'Ed25519'; x: string } {
  const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x as string };
}

/** Issues an enrollment token with `key` and enrolls a daemon with it. */
export async function enrollDaemon(
  hub: Pick<RunningHub, 'url'>,
  key: string,
  name: string,
  runtimes: { provider: string; modes?: string[]; models?: string[] }[],
): Promise<Answer> {
  const token = await call(hub, 'POST', '/api/v1/daemons/enrollment-tokens', { token: key });
  if (token.status !== 201) throw new Error(`token failed: ${token.status} ${token.text}`);
  return call(hub, 'POST', '/api/v1/daemons/enroll', {
    body: { token: token.body.token, name, publicKey: publicKey(), runtimes },
  });
}

/** A problem document (RFC 9457) with this status and code, whose requestId is the X-Request-Id. */
export function expectProblem(answer: Answer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(answer.body).toMatchObject({ status, code, requestId: answer.headers.get('x-request-id') });
}
