import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, setUp } from './support/client.js';
import { configurationPartials, configurationYaml } from './support/documents.js';
import { hubOn, startHub } from './support/hub.js';
import { eventually } from './support/poll.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('HTTP behaviour common to every route', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;

  beforeAll(async () => {
    hub = await hubOn('external');
  }, 120_000);
  afterAll(async () => hub?.close());

  it('answers /healthz and /readyz', async () => {
    expect(await call(hub, 'GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await call(hub, 'GET', '/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
  });

  it('answers unknown routes with a 404 problem and wrong methods with a 405 naming the allowed ones', async () => {
    const missing = await call(hub, 'GET', '/api/v1/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(missing.body).toMatchObject({ code: 'not_found', status: 404, type: `${hub.url}/problems/not_found` });
    const wrong = await call(hub, 'PUT', '/api/v1/configurations/install', { body: {} });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    expect(wrong.body.code).toBe('method_not_allowed');
  });

  it('echoes a UUID X-Request-Id, replaces anything else, and uses it as the problem requestId', async () => {
    const mine = '0f9d1c2e-3b4a-4c5d-8e6f-7a8b9c0d1e2f';
    const echoed = await call(hub, 'GET', '/api/v1/projects', { headers: { 'x-request-id': mine } });
    expect(echoed.headers.get('x-request-id')).toBe(mine);
    expect(echoed.body.requestId).toBe(mine);
    const replaced = await call(hub, 'GET', '/healthz', { headers: { 'x-request-id': 'drop table; --' } });
    expect(replaced.headers.get('x-request-id')).toMatch(UUID);
    expect(replaced.headers.get('x-request-id')).not.toBe('drop table; --');
  });

  it('sends security headers on every response and no-store on the API', async () => {
    for (const [method, path] of [
      ['GET', '/healthz'],
      ['GET', '/api/v1/projects'],
      ['POST', '/nowhere'],
    ]) {
      const answer = await call(hub, method as string, path as string);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
      expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(answer.headers.get('x-powered-by')).toBeNull();
    }
    expect((await call(hub, 'GET', '/api/v1/projects')).headers.get('cache-control')).toBe('no-store');
  });
});

describe('the hub process', () => {
  it('at info, logs structured lines without secrets', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hub-test-'));
    const hub = await startHub({ dataDir, env: { HUB_LOG_LEVEL: 'info' } });
    try {
      const ctx = await setUp(hub);
      const answer = await call(hub, 'GET', '/api/v1/projects', { token: ctx.key });
      const requestLine = expect.objectContaining({
        message: 'request',
        requestId: answer.headers.get('x-request-id'),
        status: 200,
        path: '/api/v1/projects',
      });
      // The hub's log reaches the test through a pipe: read until the request's line has come.
      const parsed = await eventually(
        async () =>
          hub
            .output()
            .split('\n')
            .filter((line) => line.startsWith('{'))
            .map((line) => JSON.parse(line) as Record<string, unknown>),
        (lines) => lines.some((line) => requestLine.asymmetricMatch(line)),
        'the request logged',
      );
      expect(parsed).toContainEqual(requestLine);
      expect(hub.output()).not.toContain(ctx.key);
      expect(hub.output()).not.toContain(hub.adminToken);
    } finally {
      await hub.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('keeps its data across a restart on the embedded database, and stops PostgreSQL on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hub-test-'));
    try {
      const first = await startHub({ dataDir });
      const ctx = await setUp(first, { org: 'persistent' });
      expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(true);
      expect(await first.stop()).toBe(0);
      expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
      const second = await startHub({ dataDir });
      try {
        expect((await call(second, 'GET', '/api/v1/projects', { token: ctx.key })).body.projects).toHaveLength(1);
      } finally {
        expect(await second.stop()).toBe(0);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('finishes a request in flight when told to stop', async () => {
    const hub = await hubOn('external');
    const ctx = await setUp(hub);
    const yaml = `${configurationYaml}# ${'x'.repeat(900_000)}\n`;
    const body = JSON.stringify({ projectSlug: ctx.project, yaml, partials: configurationPartials });
    // In flight for certain: the hub has read the request's head (it says "100 Continue") before
    // the signal, and its body comes after. (A fixed pause before the signal raced the hub's accept.)
    const validating = request(`${hub.url}/api/v1/configurations/validate`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ctx.key}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        expect: '100-continue',
      },
    });
    const answered = new Promise<number>((resolve, reject) => {
      validating.on('response', (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      validating.on('error', (error) => reject(new Error(`${String(error)}\n${hub.output()}`)));
    });
    // Its exit, without a second signal (hub.stop() would send one, which stops at once, exit 143).
    const exited = new Promise<number | null>((resolve) => hub.process.once('exit', (code) => resolve(code)));
    validating.flushHeaders();
    await once(validating, 'continue');
    hub.process.kill('SIGTERM');
    validating.end(body);
    expect([200, 422]).toContain(await answered);
    expect(await exited).toBe(0);
    await hub.close();
  }, 120_000);

  it('prints the admin token on first start only, and keeps it in the data directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hub-test-'));
    try {
      const first = await startHub({ dataDir, env: { HUB_ADMIN_TOKEN: '' } });
      await first.stop();
      expect(first.output(), first.output()).toMatch(/Admin token \(shown once[^)]*\): hub_admin_[0-9A-Za-z]{38}/);
      const second = await startHub({ dataDir, env: { HUB_ADMIN_TOKEN: '' } });
      await second.stop();
      expect(second.output()).not.toMatch(/Admin token/);
      expect(second.output()).toMatch(/Hub listening on http:\/\/127\.0\.0\.1:\d+/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
