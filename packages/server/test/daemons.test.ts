import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, enrollDaemon, expectProblem, publicKey, setUp, type Answer } from './support/client.js';
import { configurationPartials, configurationYaml, exampleDaemons, triggerYaml } from './support/documents.js';
import { databases, hubOn, startHub, type RunningHub } from './support/hub.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TOKEN = /^hub_et_[0-9A-Za-z]{38}$/;
const ISO_MS_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const TEN_MINUTES = 10 * 60 * 1000;
const TOKENS = '/api/v1/daemons/enrollment-tokens';
const ENROLL = '/api/v1/daemons/enroll';
const runtimes = [{ provider: 'claude', modes: ['edit'] }];

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

describe.each(databases)('daemons on the %s database', (kind) => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  /** A second hub instance on the same database, as behind a load balancer. */
  let twin: RunningHub;

  const issue = (key: string, options: Parameters<typeof call>[3] = {}) =>
    call(hub, 'POST', TOKENS, { token: key, ...options });
  const tokenOf = async (key: string): Promise<string> => {
    const answer = await issue(key);
    if (answer.status !== 201) throw new Error(`token failed: ${answer.status} ${answer.text}`);
    return answer.body.token as string;
  };
  const enroll = (body: Record<string, unknown>) =>
    call(hub, 'POST', ENROLL, { body: { publicKey: publicKey(), runtimes, ...body } });
  const revoke = (org: { org: string; keyId: string }, on: Pick<RunningHub, 'url'> = hub) =>
    call(on, 'POST', `/api/admin/v1/organizations/${org.org}/api-keys/${org.keyId}/revoke`, { token: hub.adminToken });
  const tokenRow = async (token: string) => {
    const [row] = await hub.sql`
      select id, organization_id, api_key_id, expires_at, consumed_at, expires_at > now() as live
      from enrollment_tokens where digest = ${sha256(token)}`;
    return row;
  };
  const organizationId = async (slug: string) => {
    const [row] = await hub.sql`select id from organizations where slug = ${slug}`;
    return row?.id as string;
  };
  const liveTokens = async (keyId: string) => {
    const [row] = await hub.sql`
      select count(*)::int as n from enrollment_tokens where api_key_id = ${keyId} and consumed_at is null and expires_at > now()`;
    return row?.n as number;
  };

  beforeAll(async () => {
    hub = await hubOn(kind);
    const databaseUrl = hub.databaseUrl ?? readFileSync(join(hub.dataDir, 'database-url'), 'utf8').trim();
    twin = await startHub({ databaseUrl, env: { HUB_ADMIN_TOKEN: hub.adminToken } });
  }, 120_000);
  afterAll(async () => {
    await twin?.stop();
    if (twin !== undefined) rmSync(twin.dataDir, { recursive: true, force: true });
    await hub?.close();
  });

  describe('POST /api/v1/daemons/enrollment-tokens', () => {
    it('answers 201 { token, expiresAt }: a hub_et_ token, ten minutes to live, ISO 8601 UTC with milliseconds', async () => {
      const org = await setUp(hub);
      const before = Date.now();
      const answer = await issue(org.key);
      const after = Date.now();
      expect(answer.status).toBe(201);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(Object.keys(answer.body).sort()).toEqual(['expiresAt', 'token']);
      expect(answer.body.token).toMatch(TOKEN);
      expect(answer.body.expiresAt).toMatch(ISO_MS_UTC);
      const expiresAt = Date.parse(answer.body.expiresAt as string);
      expect(expiresAt).toBeGreaterThanOrEqual(before + TEN_MINUTES - 3000);
      expect(expiresAt).toBeLessThanOrEqual(after + TEN_MINUTES + 3000);

      // Stored as a digest, attributed to the issuing key, with the expiry that was answered.
      const row = await tokenRow(answer.body.token as string);
      expect(row).toMatchObject({
        organization_id: await organizationId(org.org),
        api_key_id: org.keyId,
        consumed_at: null,
        live: true,
      });
      expect((row?.expires_at as Date).toISOString()).toBe(answer.body.expiresAt);
    });

    it('issues a different token each time', async () => {
      const org = await setUp(hub);
      const tokens = await Promise.all(Array.from({ length: 5 }, () => tokenOf(org.key)));
      expect(new Set(tokens).size).toBe(5);
      const [row] = await hub.sql`select count(*)::int as n from enrollment_tokens where api_key_id = ${org.keyId}`;
      expect(row?.n).toBe(5);
    });

    it.each([
      ['no body', {}],
      ['an empty body', { raw: '' }],
      ['an empty body without a content type', { raw: '', contentType: '' }],
      ['{}', { body: {} }],
      ['{} with whitespace', { raw: ' { } \n' }],
    ])('accepts %s', async (_case, options) => {
      const org = await setUp(hub);
      const answer = await issue(org.key, options);
      expect(answer.status).toBe(201);
      expect(answer.body.token).toMatch(TOKEN);
    });

    it.each([
      ['{"a":1}', { raw: '{"a":1}' }],
      ['[]', { raw: '[]' }],
      ['"x"', { raw: '"x"' }],
      ['null', { raw: 'null' }],
      ['0', { raw: '0' }],
      ['{"token":"x"}', { raw: '{"token":"x"}' }],
      ['malformed JSON', { raw: '{' }],
    ])('answers 400 for the body %s, and stores no token', async (_case, options) => {
      const org = await setUp(hub);
      const answer = await issue(org.key, options);
      expectProblem(answer, 400, 'invalid_request');
      const [row] = await hub.sql`select count(*)::int as n from enrollment_tokens where api_key_id = ${org.keyId}`;
      expect(row?.n).toBe(0);
    });

    it('answers 401 without a credential, and with a malformed, unknown or revoked key', async () => {
      const revoked = await setUp(hub);
      expect((await revoke(revoked)).status).toBe(200);
      const deleted = await setUp(hub);
      await hub.sql`delete from api_keys where id = ${deleted.keyId}`;
      const attempts: Record<string, string>[] = [
        {},
        { authorization: 'Bearer hub_pk_nope' },
        { authorization: `Bearer ${deleted.key}` },
        { authorization: `Bearer ${revoked.key}` },
        { authorization: `Bearer ${hub.adminToken}` },
      ];
      for (const headers of attempts) {
        const answer = await call(hub, 'POST', TOKENS, { headers });
        expectProblem(answer, 401, 'unauthorized');
      }
      const [row] =
        await hub.sql`select count(*)::int as n from enrollment_tokens where api_key_id in (${revoked.keyId}, ${deleted.keyId})`;
      expect(row?.n).toBe(0);
    });

    it('answers 403 naming daemons:enroll to a key without it, and stores no token', async () => {
      const org = await setUp(hub, {
        scopes: ['projects:read', 'configuration:validate', 'configuration:install', 'runs:dispatch', 'runs:read'],
      });
      const answer = await issue(org.key);
      expectProblem(answer, 403, 'insufficient_scope');
      expect(answer.body.requiredScope).toBe('daemons:enroll');
      const [row] = await hub.sql`select count(*)::int as n from enrollment_tokens where api_key_id = ${org.keyId}`;
      expect(row?.n).toBe(0);
    });

    it('checks 401, then 403, then 400', async () => {
      const noScope = await setUp(hub, { scopes: ['projects:read'] });
      const org = await setUp(hub);
      const bad = { raw: '{"a":1}' };
      expect((await call(hub, 'POST', TOKENS, bad)).status).toBe(401);
      expect((await issue(noScope.key, bad)).status).toBe(403);
      expect((await issue(org.key, bad)).status).toBe(400);
    });

    it("expires the key's unconsumed tokens at once when the key is revoked, leaving consumed ones as they were", async () => {
      const org = await setUp(hub);
      const consumed = await tokenOf(org.key);
      expect((await enroll({ token: consumed, name: 'used' })).status).toBe(201);
      const [before] =
        await hub.sql`select expires_at, consumed_at from enrollment_tokens where digest = ${sha256(consumed)}`;
      const pending = await Promise.all([tokenOf(org.key), tokenOf(org.key), tokenOf(org.key)]);
      expect(await liveTokens(org.keyId)).toBe(3);
      expect((await revoke(org)).status).toBe(200);
      expect(await liveTokens(org.keyId)).toBe(0);
      for (const token of pending) expect(await tokenRow(token)).toMatchObject({ consumed_at: null, live: false });
      const [after] =
        await hub.sql`select expires_at, consumed_at from enrollment_tokens where digest = ${sha256(consumed)}`;
      expect(after).toEqual(before);
      for (const token of pending)
        expectProblem(await enroll({ token, name: 'late' }), 401, 'enrollment_token_invalid');
      expectProblem(await issue(org.key), 401, 'unauthorized');
    });

    it.each([
      ['this instance', 0],
      ['this instance', 5],
      ['this instance', 15],
      ['another instance', 5],
      ['another instance', 25],
    ] as const)(
      'never leaves a live token of a key revoked on %s while 30 tokens are being issued (revocation after %i)',
      async (where, revokeAt) => {
        const org = await setUp(hub, { scopes: ['daemons:enroll'] });
        const issued: Promise<Answer>[] = [];
        let revocation: Promise<Answer> | undefined;
        for (let i = 0; i < 30; i++) {
          if (i === revokeAt) revocation = revoke(org, where === 'this instance' ? hub : twin);
          issued.push(issue(org.key));
          if (i % 3 === 2) await delay(1);
        }
        const [revoked, answers] = await Promise.all([revocation as Promise<Answer>, Promise.all(issued)]);
        expect(revoked.status).toBe(200);
        for (const answer of answers) expect([201, 401]).toContain(answer.status);
        // Once the revocation has answered, the key issues nothing more, on either instance.
        expectProblem(await issue(org.key), 401, 'unauthorized');
        expectProblem(await call(twin, 'POST', TOKENS, { token: org.key }), 401, 'unauthorized');
        expect(await liveTokens(org.keyId)).toBe(0);
        const tokens = answers.filter((answer) => answer.status === 201).map((answer) => answer.body.token as string);
        const enrollments = await Promise.all(tokens.map((token, i) => enroll({ token, name: `racer-${i}` })));
        for (const answer of enrollments) expectProblem(answer, 401, 'enrollment_token_invalid');
        const [daemons] =
          await hub.sql`select count(*)::int as n from daemons where organization_id = ${await organizationId(org.org)}`;
        expect(daemons?.n).toBe(0);
      },
    );

    it('never lets a token be consumed after the revocation of its key expired it, when enrollments race a revocation on another instance', async () => {
      // Enrollments on this instance, the revocation on the other, 0 to 3 ms later. The tokens are
      // seconds old, so a token that is consumed and yet expired no later than its key's
      // revocation was expired by the revocation first and consumed afterwards: an enrollment
      // that succeeded although the revocation had already taken effect.
      let consumedAfterRevocation = 0;
      for (let round = 0; round < 60; round++) {
        const org = await setUp(hub, { scopes: ['daemons:enroll'] });
        const tokens = await Promise.all(Array.from({ length: 12 }, () => tokenOf(org.key)));
        const enrollments = tokens.map((token, i) => enroll({ token, name: `racer-${i}` }));
        if (round % 4 > 0) await delay(round % 4);
        expect((await revoke(org, twin)).status).toBe(200);
        for (const answer of await Promise.all(enrollments)) expect([201, 401]).toContain(answer.status);
        expect(await liveTokens(org.keyId)).toBe(0);
        const [row] = await hub.sql`
          select count(*)::int as n from enrollment_tokens t join api_keys k on k.id = t.api_key_id
          where k.id = ${org.keyId} and t.consumed_at is not null and t.expires_at <= k.revoked_at`;
        consumedAfterRevocation += row?.n as number;
      }
      expect(consumedAfterRevocation).toBe(0);
    }, 120_000);
  });

  describe('POST /api/v1/daemons/enroll', () => {
    it('answers 201 { daemonId, name }, registers the daemon with its key and runtimes, and consumes the token', async () => {
      const org = await setUp(hub);
      const token = await tokenOf(org.key);
      const key = publicKey();
      const advertised = [{ provider: 'codex', models: ['gpt-5'], modes: ['auto'] }, { provider: 'claude' }];
      const answer = await call(hub, 'POST', ENROLL, {
        body: { token, name: 'build-box', publicKey: key, runtimes: advertised },
      });
      expect(answer.status).toBe(201);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(answer.body).toEqual({ daemonId: expect.stringMatching(UUID), name: 'build-box' });
      const stored = await tokenRow(token);
      expect(stored?.consumed_at).toBeInstanceOf(Date);
      const [daemon] =
        await hub.sql`select organization_id, name, public_key, runtimes, enrollment_token_id, retired_at from daemons where id = ${answer.body.daemonId as string}`;
      expect(daemon).toEqual({
        organization_id: await organizationId(org.org),
        name: 'build-box',
        public_key: key,
        runtimes: advertised,
        enrollment_token_id: stored?.id,
        retired_at: null,
      });
    });

    it('takes no bearer credential', async () => {
      const org = await setUp(hub);
      const token = await tokenOf(org.key);
      const answer = await call(hub, 'POST', ENROLL, {
        headers: {},
        body: { token, name: 'no-bearer', publicKey: publicKey(), runtimes: [] },
      });
      expect(answer.status).toBe(201);
    });

    it('accepts a token only once: a second enrollment is 401 enrollment_token_invalid', async () => {
      const org = await setUp(hub);
      const token = await tokenOf(org.key);
      expect((await enroll({ token, name: 'first' })).status).toBe(201);
      expectProblem(await enroll({ token, name: 'second' }), 401, 'enrollment_token_invalid');
      expectProblem(await enroll({ token, name: 'first', replace: true }), 401, 'enrollment_token_invalid');
      const [daemons] =
        await hub.sql`select count(*)::int as n from daemons where organization_id = ${await organizationId(org.org)}`;
      expect(daemons?.n).toBe(1);
    });

    it('refuses an expired token with 401', async () => {
      const org = await setUp(hub);
      const token = await tokenOf(org.key);
      await hub.sql`update enrollment_tokens set expires_at = now() - interval '1 second' where digest = ${sha256(token)}`;
      expectProblem(await enroll({ token, name: 'late' }), 401, 'enrollment_token_invalid');
      expect(await tokenRow(token)).toMatchObject({ consumed_at: null });
    });

    it('refuses a token whose issuing key was revoked with 401', async () => {
      const org = await setUp(hub);
      const token = await tokenOf(org.key);
      expect((await revoke(org)).status).toBe(200);
      expectProblem(await enroll({ token, name: 'orphan' }), 401, 'enrollment_token_invalid');
      const [daemons] =
        await hub.sql`select count(*)::int as n from daemons where organization_id = ${await organizationId(org.org)}`;
      expect(daemons?.n).toBe(0);
    });

    it("refuses a revoked key's token with 401 even if its expiry was never updated", async () => {
      const org = await setUp(hub);
      const token = await tokenOf(org.key);
      expect((await revoke(org)).status).toBe(200);
      await hub.sql`update enrollment_tokens set expires_at = now() + interval '5 minutes' where digest = ${sha256(token)}`;
      expectProblem(await enroll({ token, name: 'orphan' }), 401, 'enrollment_token_invalid');
    });

    it('refuses unknown and malformed tokens with 401 enrollment_token_invalid', async () => {
      const org = await setUp(hub);
      const forgotten = await tokenOf(org.key);
      await hub.sql`delete from enrollment_tokens where digest = ${sha256(forgotten)}`;
      const valid = await tokenOf(org.key);
      const last = valid.at(-1) === 'a' ? 'b' : 'a';
      for (const token of [
        forgotten,
        `${valid.slice(0, -1)}${last}`,
        valid.replace('hub_et_', 'hub_pk_'),
        'hub_et_nope',
        'nope',
        '',
        `${valid} `,
        org.key,
        hub.adminToken,
      ]) {
        expectProblem(await enroll({ token, name: 'guess' }), 401, 'enrollment_token_invalid');
      }
      // None of that touched the real token.
      expect(await tokenRow(valid)).toMatchObject({ consumed_at: null, live: true });
      expect((await enroll({ token: valid, name: 'guess' })).status).toBe(201);
    });

    it('refuses an overlong token as a malformed credential: 401, like any other malformed token', async () => {
      for (const token of [`hub_et_${'a'.repeat(300)}`, 'x'.repeat(201)]) {
        expectProblem(await enroll({ token, name: 'guess' }), 401, 'enrollment_token_invalid');
      }
    });

    it('answers 409 daemon_name_taken for a name held by an active daemon, leaving the token usable under another name', async () => {
      const org = await setUp(hub);
      const first = await enroll({ token: await tokenOf(org.key), name: 'dev-box' });
      expect(first.status).toBe(201);
      const token = await tokenOf(org.key);
      expectProblem(await enroll({ token, name: 'dev-box' }), 409, 'daemon_name_taken');
      expectProblem(await enroll({ token, name: 'dev-box', replace: false }), 409, 'daemon_name_taken');
      expect(await tokenRow(token)).toMatchObject({ consumed_at: null, live: true });
      const [held] =
        await hub.sql`select id, retired_at from daemons where name = 'dev-box' and organization_id = ${await organizationId(org.org)}`;
      expect(held).toEqual({ id: first.body.daemonId, retired_at: null });
      const other = await enroll({ token, name: 'dev-box-2' });
      expect(other.status).toBe(201);
      expect(other.body.name).toBe('dev-box-2');
    });

    it('never answers 409 to replace: true, even when two replacements of one name race', async () => {
      for (let round = 0; round < 5; round++) {
        const org = await setUp(hub);
        expect((await enroll({ token: await tokenOf(org.key), name: 'dev-box' })).status).toBe(201);
        const [a, b] = await Promise.all([tokenOf(org.key), tokenOf(org.key)]);
        const answers = await Promise.all([
          enroll({ token: a, name: 'dev-box', replace: true }),
          enroll({ token: b, name: 'dev-box', replace: true }),
        ]);
        expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
        const [active] = await hub.sql`
          select count(*)::int as n from daemons where organization_id = ${await organizationId(org.org)} and name = 'dev-box' and retired_at is null`;
        expect(active?.n).toBe(1);
      }
    });

    it('lets another organization use a name this one holds', async () => {
      const mine = await setUp(hub);
      const theirs = await setUp(hub);
      expect((await enroll({ token: await tokenOf(mine.key), name: 'shared' })).status).toBe(201);
      expect((await enroll({ token: await tokenOf(theirs.key), name: 'shared' })).status).toBe(201);
    });

    it('retires the old daemon with replace: true and answers a new daemonId', async () => {
      const org = await setUp(hub);
      const old = await enroll({ token: await tokenOf(org.key), name: 'dev-box' });
      const replaced = await enroll({ token: await tokenOf(org.key), name: 'dev-box', replace: true });
      expect(replaced.status).toBe(201);
      expect(replaced.body).toEqual({ daemonId: expect.stringMatching(UUID), name: 'dev-box' });
      expect(replaced.body.daemonId).not.toBe(old.body.daemonId);
      const rows =
        await hub.sql`select id, retired_at from daemons where organization_id = ${await organizationId(org.org)} and name = 'dev-box'`;
      const byId = new Map(rows.map((row) => [row.id as string, row.retired_at as Date | null]));
      expect(byId.size).toBe(2);
      expect(byId.get(old.body.daemonId as string)).toBeInstanceOf(Date);
      expect(byId.get(replaced.body.daemonId as string)).toBeNull();
      // replace without a holder simply enrolls.
      const fresh = await enroll({ token: await tokenOf(org.key), name: 'fresh', replace: true });
      expect(fresh.status).toBe(201);
    });

    describe('answers 400 with field issues for an invalid body, leaving the token unconsumed', () => {
      const jwk = () => publicKey();
      it.each<[string, (token: string) => unknown, string | undefined]>([
        ['a name with capitals', (token) => ({ token, name: 'Dev-Box', publicKey: jwk(), runtimes }), '/name'],
        ['a name with an underscore', (token) => ({ token, name: 'dev_box', publicKey: jwk(), runtimes }), '/name'],
        ['a name starting with a hyphen', (token) => ({ token, name: '-box', publicKey: jwk(), runtimes }), '/name'],
        ['an empty name', (token) => ({ token, name: '', publicKey: jwk(), runtimes }), '/name'],
        ['a name of 64 characters', (token) => ({ token, name: 'a'.repeat(64), publicKey: jwk(), runtimes }), '/name'],
        ['a name that is not a string', (token) => ({ token, name: 7, publicKey: jwk(), runtimes }), '/name'],
        ['no name', (token) => ({ token, publicKey: jwk(), runtimes }), '/name'],
        [
          'an RSA key',
          (token) => ({ token, name: 'box', publicKey: { kty: 'RSA', n: 'AQAB', e: 'AQAB' }, runtimes }),
          '/publicKey',
        ],
        [
          'an X25519 key',
          (token) => ({ token, name: 'box', publicKey: { ...jwk(), crv: 'X25519' }, runtimes }),
          '/publicKey',
        ],
        [
          'a key of the wrong length',
          (token) => ({ token, name: 'box', publicKey: { ...jwk(), x: 'AAAA' }, runtimes }),
          '/publicKey',
        ],
        [
          'a private key',
          (token) => ({ token, name: 'box', publicKey: { ...jwk(), d: 'A'.repeat(43) }, runtimes }),
          '/publicKey',
        ],
        [
          'a key as a string',
          (token) => ({ token, name: 'box', publicKey: 'ssh-ed25519 AAAA', runtimes }),
          '/publicKey',
        ],
        ['no key', (token) => ({ token, name: 'box', runtimes }), '/publicKey'],
        [
          'runtimes as an object',
          (token) => ({ token, name: 'box', publicKey: jwk(), runtimes: { provider: 'claude' } }),
          '/runtimes',
        ],
        [
          'runtimes as a string',
          (token) => ({ token, name: 'box', publicKey: jwk(), runtimes: 'claude' }),
          '/runtimes',
        ],
        ['no runtimes', (token) => ({ token, name: 'box', publicKey: jwk() }), '/runtimes'],
        [
          'a runtime without a provider',
          (token) => ({ token, name: 'box', publicKey: jwk(), runtimes: [{ modes: ['edit'] }] }),
          '/runtimes/0',
        ],
        [
          'modes that are not a list',
          (token) => ({ token, name: 'box', publicKey: jwk(), runtimes: [{ provider: 'claude', modes: 'edit' }] }),
          '/runtimes/0/modes',
        ],
        [
          'an unknown runtime field',
          (token) => ({ token, name: 'box', publicKey: jwk(), runtimes: [{ provider: 'claude', version: '1' }] }),
          '/runtimes/0/version',
        ],
        [
          'replace that is not a boolean',
          (token) => ({ token, name: 'box', publicKey: jwk(), runtimes, replace: 'yes' }),
          '/replace',
        ],
        [
          'an unknown field',
          (token) => ({ token, name: 'box', publicKey: jwk(), runtimes, organization: 'x' }),
          '/organization',
        ],
        ['no token', () => ({ name: 'box', publicKey: jwk(), runtimes }), '/token'],
        ['a token that is not a string', () => ({ token: 1, name: 'box', publicKey: jwk(), runtimes }), '/token'],
        ['a list', () => [], ''],
        ['no body', () => undefined, undefined],
      ])('%s', async (_case, body, pointer) => {
        const org = await setUp(hub);
        const token = await tokenOf(org.key);
        const sent = body(token);
        const answer = await call(hub, 'POST', ENROLL, sent === undefined ? {} : { body: sent });
        expectProblem(answer, 400, 'invalid_request');
        if (pointer !== undefined)
          expect(answer.body.issues).toContainEqual(
            expect.objectContaining({
              pointer,
              code: expect.stringMatching(/^request\./),
              message: expect.any(String),
            }),
          );
        expect(await tokenRow(token)).toMatchObject({ consumed_at: null, live: true });
        const [daemons] =
          await hub.sql`select count(*)::int as n from daemons where organization_id = ${await organizationId(org.org)}`;
        expect(daemons?.n).toBe(0);
      });

      it('for malformed JSON', async () => {
        expectProblem(await call(hub, 'POST', ENROLL, { raw: '{"token": ' }), 400, 'invalid_request');
      });

      it('with every issue in one answer', async () => {
        const answer = await call(hub, 'POST', ENROLL, {
          body: { token: 'x', name: 'Bad', publicKey: 'k', runtimes: 'r', extra: 1 },
        });
        expectProblem(answer, 400, 'invalid_request');
        expect(answer.body.issues.map((issue: { pointer: string }) => issue.pointer).sort()).toEqual([
          '/extra',
          '/name',
          '/publicKey',
          '/runtimes',
        ]);
      });
    });

    it('gives two concurrent enrollments with one token exactly one 201 and one 401, and one daemon', async () => {
      const org = await setUp(hub);
      const token = await tokenOf(org.key);
      const answers = await Promise.all([enroll({ token, name: 'left' }), enroll({ token, name: 'right' })]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 401]);
      const loser = answers.find((answer) => answer.status === 401) as Answer;
      expectProblem(loser, 401, 'enrollment_token_invalid');
      const rows =
        await hub.sql`select d.id from daemons d join enrollment_tokens t on t.id = d.enrollment_token_id where t.digest = ${sha256(token)}`;
      expect(rows.length).toBe(1);
      const [daemons] =
        await hub.sql`select count(*)::int as n from daemons where organization_id = ${await organizationId(org.org)}`;
      expect(daemons?.n).toBe(1);
    });

    it('gives ten concurrent enrollments with one token exactly one daemon', async () => {
      const org = await setUp(hub);
      const token = await tokenOf(org.key);
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => enroll({ token, name: `box-${i}`, replace: true })),
      );
      expect(answers.filter((answer) => answer.status === 201).length).toBe(1);
      expect(answers.filter((answer) => answer.status === 401).length).toBe(9);
      const [daemons] =
        await hub.sql`select count(*)::int as n from daemons where organization_id = ${await organizationId(org.org)}`;
      expect(daemons?.n).toBe(1);
    });
  });

  describe('end to end: configurations resolve against enrolled daemons', () => {
    it('validates a configuration once its daemon is enrolled, and keeps it resolvable under its name after replace', async () => {
      const org = await setUp(hub);
      const body = { projectSlug: org.project, yaml: configurationYaml, partials: configurationPartials };
      const validate = () => call(hub, 'POST', '/api/v1/configurations/validate', { token: org.key, body });

      const before = await validate();
      expectProblem(before, 422, 'invalid_configuration');
      expect(before.body.issues.map((issue: { code: string }) => issue.code)).toEqual(['resource.unknown_daemon']);

      const devBox = exampleDaemons.find((daemon) => daemon.name === 'dev-box') as (typeof exampleDaemons)[number];
      const first = await enrollDaemon(hub, org.key, devBox.name, devBox.runtimes);
      expect(first.status).toBe(201);
      const enrolled = await validate();
      expect(enrolled.status).toBe(200);
      expect(enrolled.body).toEqual({ projectSlug: org.project, valid: true });

      const second = await enroll({
        token: await tokenOf(org.key),
        name: devBox.name,
        runtimes: devBox.runtimes,
        replace: true,
      });
      expect(second.status).toBe(201);
      const [retired] = await hub.sql`select retired_at from daemons where id = ${first.body.daemonId as string}`;
      expect(retired?.retired_at).toBeInstanceOf(Date);
      expect((await validate()).status).toBe(200);
      const installed = await call(hub, 'POST', '/api/v1/configurations/install', { token: org.key, body });
      expect(installed.status).toBe(201);

      // The replacement's runtimes are what resolution sees from now on.
      const third = await enroll({
        token: await tokenOf(org.key),
        name: devBox.name,
        runtimes: [{ provider: 'codex' }],
        replace: true,
      });
      expect(third.status).toBe(201);
      const narrowed = await validate();
      expectProblem(narrowed, 422, 'invalid_configuration');
      expect(narrowed.body.issues.map((issue: { code: string }) => issue.code)).toEqual(['resource.unknown_runtime']);
    });

    it('validates a B trigger once the daemon it names is enrolled', async () => {
      const org = await setUp(hub);
      const validate = () =>
        call(hub, 'POST', '/api/v1/triggers/validate', { token: org.key, body: { yaml: triggerYaml } });
      expectProblem(await validate(), 422, 'invalid_trigger');
      const buildBox = exampleDaemons.find((daemon) => daemon.name === 'build-box') as (typeof exampleDaemons)[number];
      expect((await enrollDaemon(hub, org.key, buildBox.name, buildBox.runtimes)).status).toBe(201);
      const answer = await validate();
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ name: 'nightly-triage', valid: true });
      expect(
        (
          await enroll({
            token: await tokenOf(org.key),
            name: buildBox.name,
            runtimes: buildBox.runtimes,
            replace: true,
          })
        ).status,
      ).toBe(201);
      expect((await validate()).status).toBe(200);
    });
  });
});
