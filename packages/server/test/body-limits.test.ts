// Body limits by operation, enforced before any parsing: a body announced larger than the limit is
// refused without the hub reading a byte of it, a chunked one is cut off at the limit, and a
// dispatch's key is checked before a large body is read. Every request here that the hub must
// answer before its body is sent never sends (or ends) that body: a hub that waited for it would
// never answer, and the test would fail on its timeout.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectProblem, publicKey, setUp } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { hubOn } from './support/hub.js';

const ENROLL = '/api/v1/daemons/enroll';
const DISPATCH = '/api/v1/manual-runs';
const KiB = 1024;

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: { code?: string; status?: number; detail?: string } | undefined;
  /** Resolves when the hub has closed the connection (the request itself is never ended). */
  closed: Promise<void>;
}

/**
 * A request whose head goes out at once, followed by `chunks` (each written as it is), and never
 * ended: resolves with the hub's answer, which must therefore come before the body is complete.
 */
function unfinished(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  chunks: Buffer[] = [],
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, url), { method, headers, agent: false });
    let answered = false;
    const closed = new Promise<void>((done) => req.once('close', () => done()));
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    req.on('response', (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (data: string) => (text += data));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body:
            text === '' || !/json/.test(res.headers['content-type'] ?? '')
              ? undefined
              : (JSON.parse(text) as RawAnswer['body']),
          closed,
        }),
      );
    });
    req.flushHeaders();
    for (const chunk of chunks) req.write(chunk);
  });
}

/** `size` bytes of a JSON body's beginning, for bodies that are never finished. */
const filler = (size: number) => Buffer.from(`{"token":"${'x'.repeat(Math.max(0, size - 10))}`.slice(0, size));

describe('body limits, before any parsing', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let ctx: Awaited<ReturnType<typeof setUp>>;

  beforeAll(async () => {
    hub = await hubOn('external');
    ctx = await setUp(hub);
  }, 120_000);
  afterAll(async () => {
    await hub?.close();
  });

  it('refuses an enrollment announced at 14 MB with 413 without reading it, and closes the connection', async () => {
    const answer = await unfinished(hub.url, 'POST', ENROLL, {
      'content-type': 'application/json',
      'content-length': String(14_000_000),
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect(answer.headers.connection).toBe('close');
    await answer.closed;
  });

  it('cuts a chunked enrollment off once it passes 16 KiB: 413 before the body ends', async () => {
    // 15 chunks of 1 KiB, then one of 2 KiB that crosses the limit; nothing after it, and no last chunk.
    const chunks = [...Array.from({ length: 15 }, () => Buffer.alloc(KiB, 0x20)), Buffer.alloc(2 * KiB, 0x20)];
    const answer = await unfinished(
      hub.url,
      'POST',
      ENROLL,
      { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      chunks,
    );
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ code: 'payload_too_large' });
    expect(answer.headers.connection).toBe('close');
    await answer.closed;
  });

  it('reads an enrollment as large as a legal one gets in practice: a 4,096-character token and several runtimes', async () => {
    const models = Array.from({ length: 20 }, (_, i) => `model-${i}-${'m'.repeat(40)}`);
    const runtimes = ['claude', 'codex', 'gemini', 'aider', 'opencode'].map((provider) => ({
      provider,
      modes: ['edit', 'plan', 'review', 'auto'],
      models,
    }));
    const body = { token: `hub_et_${'A'.repeat(4089)}`, name: 'big-box', publicKey: publicKey(), runtimes };
    expect(Buffer.byteLength(JSON.stringify(body))).toBeGreaterThan(8 * KiB);
    expectProblem(await call(hub, 'POST', ENROLL, { body }), 401, 'enrollment_token_invalid');
    // One byte over the limit is refused, whatever it holds.
    const over = `{"token":"${'a'.repeat(16 * KiB - 11)}"}`;
    expect(Buffer.byteLength(over)).toBe(16 * KiB + 1);
    expectProblem(await call(hub, 'POST', ENROLL, { raw: over }), 413, 'payload_too_large');
    expectProblem(await call(hub, 'POST', ENROLL, { raw: over.slice(0, -2) + '}' }), 400, 'invalid_request');
  });

  it('limits the OAuth forms to 4 KiB, announced or chunked', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const announced = await unfinished(hub.url, 'POST', '/oauth/token', {
      ...form,
      'content-length': String(14_000_000),
    });
    expect([announced.status, announced.body?.code, announced.headers.connection]).toEqual([
      413,
      'payload_too_large',
      'close',
    ]);
    await announced.closed;
    const chunked = await unfinished(
      hub.url,
      'POST',
      '/oauth/device_authorization',
      { ...form, 'transfer-encoding': 'chunked' },
      [Buffer.from(`client_id=hub-cli&hostname=${'h'.repeat(5 * KiB)}`)],
    );
    expect([chunked.status, chunked.body?.code]).toEqual([413, 'payload_too_large']);
    await chunked.closed;
    // Under the limit, the form is the OAuth endpoint's to judge.
    const small = await call(hub, 'POST', '/oauth/token', {
      raw: `grant_type=urn:ietf:params:oauth:grant-type:device_code&client_id=hub-cli&device_code=${'d'.repeat(40)}`,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(small.status).toBe(400);
    expect(small.body).toMatchObject({ error: expect.any(String) });
  });

  it('refuses a signed daemon request announced over its limit before the signature check reads it', async () => {
    const path = `/api/v1/daemon/executions/${randomUUID()}/output`;
    const answer = await unfinished(hub.url, 'POST', path, {
      'content-type': 'application/json',
      'content-length': String(2 * 1024 * KiB),
    });
    expect([answer.status, answer.body?.code, answer.headers.connection]).toEqual([413, 'payload_too_large', 'close']);
    await answer.closed;
  });

  it('cuts a chunked signed daemon request off at its limit with a 413 that names it, and stays up', async () => {
    // Well-formed signature headers: the body is read (and refused) before the daemon is looked up.
    const headers = {
      'content-type': 'application/json',
      'transfer-encoding': 'chunked',
      'hub-daemon': randomUUID(),
      'hub-timestamp': String(Date.now()),
      'hub-nonce': 'abcdefghijklmnop',
      'hub-signature': 'A'.repeat(86),
    };
    const answer = await unfinished(hub.url, 'POST', '/api/v1/daemon/heartbeat', headers, [
      Buffer.alloc(70 * KiB, 0x20),
    ]);
    expect([answer.status, answer.body?.code]).toEqual([413, 'payload_too_large']);
    expect(answer.body?.detail).toContain('64 KiB');
    await answer.closed;
    expect((await call(hub, 'GET', '/api/v1/credential', { token: ctx.key })).status).toBe(200);
  });

  it('says how many parameters an OAuth form may have when it has more', async () => {
    const many = Array.from({ length: 150 }, (_, i) => `p${i}=1`).join('&');
    const answer = await call(hub, 'POST', '/oauth/token', {
      raw: many,
      contentType: 'application/x-www-form-urlencoded',
    });
    expectProblem(answer, 413, 'payload_too_large');
    expect((answer.body as { detail?: string }).detail).toContain('100');
  });

  it('checks a dispatch key before it reads a large body: 401 and 403 without reading it', async () => {
    const headers = { 'content-type': 'application/json', 'content-length': String(1024 * KiB) };
    const wrongKey = await unfinished(hub.url, 'POST', DISPATCH, { ...headers, authorization: 'Bearer hub_pk_nope' }, [
      filler(4 * KiB),
    ]);
    expect([wrongKey.status, wrongKey.body?.code, wrongKey.headers.connection]).toEqual([401, 'unauthorized', 'close']);
    await wrongKey.closed;
    const readOnly = await setUp(hub, { scopes: ['projects:read'] });
    const noScope = await unfinished(hub.url, 'POST', DISPATCH, {
      ...headers,
      authorization: `Bearer ${readOnly.key}`,
    });
    expect([noScope.status, noScope.body?.code]).toEqual([403, 'insufficient_scope']);
    await noScope.closed;
    // Chunked bodies too, whatever their size: the key first.
    const chunked = await unfinished(
      hub.url,
      'POST',
      '/api/manual-runs',
      { 'content-type': 'application/json', 'transfer-encoding': 'chunked', authorization: 'Bearer hub_pk_nope' },
      [filler(100)],
    );
    expect([chunked.status, chunked.body?.code]).toEqual([401, 'unauthorized']);
    await chunked.closed;
  });

  it('dispatches a large or chunked body after the key check, with the trigger looked up on its own', async () => {
    const daemon = await TestDaemon.enroll(hub, ctx.key, 'limits-box');
    expect((await daemon.heartbeat()).status).toBe(200);
    const yaml = `
environments:
  - { name: box, kind: daemon, daemon: limits-box, cwd: /tmp }
triggers:
  - name: go
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [dev-lead] }
    steps:
      - { id: go, environment: box, agent: { provider: claude }, prompt: [ { text: "Do this: {{ prompt }}" } ] }
`;
    expect(
      (
        await call(hub, 'POST', '/api/v1/configurations/install', {
          token: ctx.key,
          body: { projectSlug: ctx.project, yaml },
        })
      ).status,
    ).toBe(201);
    const dispatch = {
      projectSlug: ctx.project,
      trigger: 'go',
      actor: 'dev-lead',
      deliveryKey: randomUUID(),
      input: 'x'.repeat(100 * KiB),
    };
    const first = await call(hub, 'POST', DISPATCH, { token: ctx.key, body: dispatch });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ deliveryKey: dispatch.deliveryKey, workflowStatus: 'running' });
    // The same delivery again: the earlier dispatch is found by the same look-up.
    const again = await call(hub, 'POST', DISPATCH, { token: ctx.key, body: dispatch });
    expect([again.status, again.headers.get('idempotent-replayed'), again.body.triggerRunId]).toEqual([
      200,
      'true',
      first.body.triggerRunId,
    ]);
    expect(
      await call(hub, 'POST', DISPATCH, {
        token: ctx.key,
        body: { ...dispatch, deliveryKey: randomUUID(), projectSlug: 'nope' },
      }),
    ).toMatchObject({ status: 404, body: { code: 'project_not_found' } });
    expect(
      await call(hub, 'POST', DISPATCH, {
        token: ctx.key,
        body: { ...dispatch, deliveryKey: randomUUID(), trigger: 'nope' },
      }),
    ).toMatchObject({ status: 404, body: { code: 'trigger_not_found' } });
    // A broken large body, with a valid key: 400.
    expect(
      await call(hub, 'POST', DISPATCH, { token: ctx.key, raw: `{"input":"${'x'.repeat(20 * KiB)}` }),
    ).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    // Chunked, small: also after the key check.
    const chunked = await chunkedCall(
      hub.url,
      DISPATCH,
      ctx.key,
      JSON.stringify({ ...dispatch, deliveryKey: randomUUID(), input: 'small' }),
    );
    expect(chunked.status).toBe(200);
    // A body over the dispatch's 4 MiB limit, with a valid key: 413.
    expect(
      await call(hub, 'POST', DISPATCH, { token: ctx.key, body: { ...dispatch, input: 'x'.repeat(4 * 1024 * KiB) } }),
    ).toMatchObject({ status: 413, body: { code: 'payload_too_large' } });
  });

  it('lets a client that sends all of a refused body read its answer, not a reset (a lingering close)', async () => {
    // The hub answers at once and closes; had it closed with the body still arriving, the kernel
    // would reset the connection, and fetch would fail with EPIPE instead of showing the 413 or 401.
    const body = `{"token":"${'x'.repeat(17 * 1024 * KiB)}"}`;
    for (let attempt = 0; attempt < 8; attempt++) {
      const enroll = await fetch(`${hub.url}${ENROLL}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(enroll.status).toBe(413);
      expect(((await enroll.json()) as { detail: string }).detail).toBe(
        'The body is larger than this operation accepts: at most 16 KiB.',
      );
      const install = await fetch(`${hub.url}/api/v1/configurations/install`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer hub_pk_wrong' },
        body,
      });
      expect(install.status).toBe(401);
      await install.text();
    }
  });

  it('refuses a dashboard form over 64 KB with a 413 page, before reading it', async () => {
    const origin = new URL(hub.url).origin;
    const announced = await unfinished(hub.url, 'POST', '/sign-in', {
      'content-type': 'application/x-www-form-urlencoded',
      origin,
      'content-length': String(14_000_000),
    });
    expect(announced.status).toBe(413);
    expect(announced.headers['content-type']).toMatch(/^text\/html/);
    expect(announced.headers.connection).toBe('close');
    const chunked = await unfinished(
      hub.url,
      'POST',
      '/sign-in',
      { 'content-type': 'application/x-www-form-urlencoded', origin, 'transfer-encoding': 'chunked' },
      [Buffer.from('email=')],
    );
    expect(chunked.status).toBe(413);
    // Sent whole, it is refused all the same, and the answer is read, not reset.
    const whole = await fetch(`${hub.url}/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: `email=${'a'.repeat(4 * 1024 * KiB)}`,
    });
    expect(whole.status).toBe(413);
    expect(await whole.text()).toMatch(/Form too large.*at most 64 KiB/s);
    // More fields than the parser takes, in a small body: the same page, saying the limit.
    const fields = Array.from({ length: 1_100 }, (_, i) => `f${i}=1`).join('&');
    const many = await fetch(`${hub.url}/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: fields,
    });
    expect([many.status, many.headers.get('content-type')]).toEqual([413, expect.stringMatching(/^text\/html/)]);
    expect(await many.text()).toContain('1,000 fields');
  });

  it('reads JSON as UTF-8 only, uncompressed, with or without a byte order mark', async () => {
    const body = JSON.stringify({ slug: 'bom-org', name: 'BOM' });
    const admin = { token: hub.adminToken };
    expectProblem(
      await call(hub, 'POST', '/api/admin/v1/organizations', {
        ...admin,
        raw: body,
        contentType: 'application/json; charset=utf-16',
      }),
      415,
      'unsupported_media_type',
    );
    expectProblem(
      await call(hub, 'POST', '/api/admin/v1/organizations', {
        ...admin,
        raw: body,
        headers: { 'content-encoding': 'gzip' },
      }),
      415,
      'unsupported_media_type',
    );
    expect(
      (
        await call(hub, 'POST', '/api/admin/v1/organizations', {
          ...admin,
          raw: `\uFEFF${body}`,
          contentType: 'application/json; charset="UTF-8"',
        })
      ).status,
    ).toBe(201);
  });
});

/** A POST whose body goes out chunked (no Content-Length), ended. */
function chunkedCall(
  url: string,
  path: string,
  token: string,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', authorization: `Bearer ${token}` },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (data: string) => (text += data));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.write(body.slice(0, 10));
    req.end(body.slice(10));
  });
}
