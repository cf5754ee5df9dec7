// `hub login`'s grant on a real hub (RFC 8628, 8414, 7009): the CLI's steps over HTTP, the
// person's approval through the dashboard's store over the same database (another connection,
// as another hub instance would be), and the CLI credential it makes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardStore } from '../src/dashboard/store.js';
import { call, publicKey, setUp } from './support/client.js';
import { databases, hubOn } from './support/hub.js';

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** Where the store's calls come from (the throttle counts addresses): the guesser's own address is another. */
const ADDRESS = '192.0.2.1';
const GUESSER = '192.0.2.66';
const CLI_SCOPES = [
  'projects:read',
  'configuration:validate',
  'configuration:install',
  'runs:dispatch',
  'runs:read',
  'daemons:enroll',
];

describe.each(databases)('hub login on a real hub (%s PostgreSQL)', (kind) => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let store: ReturnType<typeof dashboardStore>;
  let alpha: Awaited<ReturnType<typeof setUp>>;
  let beta: Awaited<ReturnType<typeof setUp>>;
  let ada: string;
  let mia: string;
  let orgIds: Record<string, string>;

  beforeAll(async () => {
    hub = await hubOn(kind, { HUB_DEVICE_POLL_INTERVAL_SECONDS: '1' });
    store = dashboardStore(hub.sql);
    alpha = await setUp(hub);
    beta = await setUp(hub);
    orgIds = Object.fromEntries(
      (await hub.sql<{ slug: string; id: string }[]>`select slug, id from organizations`).map((row) => [
        row.slug,
        row.id,
      ]),
    );
    // People as the dashboard makes them (its own tests cover that): Ada owns both, Mia is a member of alpha.
    const [a] =
      await hub.sql`insert into accounts (email, name, password_hash) values ('ada@example.com', 'Ada', 'scrypt$x') returning id`;
    const [m] =
      await hub.sql`insert into accounts (email, name, password_hash) values ('mia@example.com', 'Mia', 'scrypt$x') returning id`;
    ada = a?.id as string;
    mia = m?.id as string;
    await hub.sql`insert into organization_members (organization_id, account_id, role) values
      (${orgIds[alpha.org] as string}, ${ada}, 'owner'), (${orgIds[beta.org] as string}, ${ada}, 'owner'), (${orgIds[alpha.org] as string}, ${mia}, 'member')`;
  }, 120_000);

  afterAll(async () => hub?.close());

  const post = (path: string, fields: Record<string, string | string[]>) => {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) for (const one of [value].flat()) body.append(name, one);
    return call(hub, 'POST', path, { raw: body.toString(), contentType: 'application/x-www-form-urlencoded' });
  };
  const start = (fields: Record<string, string> = {}) =>
    post('/oauth/device_authorization', { client_id: 'hub-cli', hostname: 'ada-laptop', ...fields });
  const poll = (deviceCode: string) =>
    post('/oauth/token', { grant_type: GRANT, device_code: deviceCode, client_id: 'hub-cli' });
  /** A request approved by `account` for `org`, and its device code. */
  const approved = async (account: string, org: string) => {
    const { body } = await start();
    expect(await store.approveDevice(account, body.user_code, orgIds[org] as string, ADDRESS)).toBe('approved');
    return body.device_code as string;
  };
  const login = async (account: string, org: string) => {
    const token = await poll(await approved(account, org));
    expect(token.status, token.text).toBe(200);
    return token.body.access_token as string;
  };

  it('advertises its endpoints (RFC 8414), absolute on its public URL', async () => {
    const { status, body } = await call(hub, 'GET', '/.well-known/oauth-authorization-server');
    expect(status).toBe(200);
    expect(body).toEqual({
      issuer: hub.url,
      device_authorization_endpoint: `${hub.url}/oauth/device_authorization`,
      token_endpoint: `${hub.url}/oauth/token`,
      revocation_endpoint: `${hub.url}/oauth/revoke`,
      grant_types_supported: [GRANT],
      response_types_supported: [],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: CLI_SCOPES,
    });
  });

  it('starts a device authorization: a device code, an XXXX-XXXX user code of the base-20 alphabet, the verification page', async () => {
    const answer = await start();
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const { body } = answer;
    expect(Object.keys(body).sort()).toEqual([
      'device_code',
      'expires_in',
      'interval',
      'user_code',
      'verification_uri',
      'verification_uri_complete',
    ]);
    expect(body.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(body.verification_uri).toBe(`${hub.url}/device`);
    expect(body.verification_uri_complete).toBe(`${hub.url}/device?user_code=${body.user_code}`);
    expect(body).toMatchObject({ expires_in: 600, interval: 1 });
    // Only the digest of the device code is kept.
    const [row] =
      await hub.sql`select device_digest, user_code, host, scopes from device_authorizations where user_code = ${body.user_code.replace('-', '')}`;
    expect(row).toMatchObject({ host: 'ada-laptop', scopes: CLI_SCOPES });
    expect(Buffer.from(row?.device_digest as Buffer).toString('utf8')).not.toContain(body.device_code);
    const lookup = await store.deviceRequest(ada, body.user_code.toLowerCase().replace('-', ' '), ADDRESS);
    expect(lookup).toMatchObject({
      ok: true,
      request: { userCode: body.user_code, clientId: 'hub-cli', host: 'ada-laptop', scopes: CLI_SCOPES },
    });
  });

  it('answers pending, then slow_down when polled sooner than the interval (which grows by 5 s), then the credential once approved, once', async () => {
    const { body } = await start();
    const first = await poll(body.device_code);
    expect([first.status, first.body.error]).toEqual([400, 'authorization_pending']);
    const second = await poll(body.device_code);
    expect([second.status, second.body.error]).toEqual([400, 'slow_down']);
    const [row] =
      await hub.sql`select poll_interval from device_authorizations where user_code = ${body.user_code.replace('-', '')}`;
    expect(row?.poll_interval).toBe(6);
    expect(await store.approveDevice(ada, body.user_code, orgIds[alpha.org] as string, ADDRESS)).toBe('approved');
    // Approved, it is no longer a request anyone can look up or decide.
    expect(await store.deviceRequest(ada, body.user_code, ADDRESS)).toEqual({ ok: false, reason: 'not_found' });
    expect(await store.denyDevice(ada, body.user_code, ADDRESS)).toBe('not_found');
    const token = await poll(body.device_code);
    expect(token.status, token.text).toBe(200);
    expect(token.headers.get('cache-control')).toBe('no-store');
    expect(token.body).toEqual({
      access_token: expect.stringMatching(/^hub_cli_[0-9A-Za-z]{38}$/),
      token_type: 'Bearer',
      scope: CLI_SCOPES.join(' '),
    });
    const again = await poll(body.device_code);
    expect([again.status, again.body.error]).toEqual([400, 'invalid_grant']);
  });

  it('redeems an approved device code once when two polls race', async () => {
    const deviceCode = await approved(ada, alpha.org);
    const answers = await Promise.all([poll(deviceCode), poll(deviceCode), poll(deviceCode)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400, 400]);
    expect(answers.filter((answer) => answer.status === 400).map((answer) => answer.body.error)).toEqual([
      'invalid_grant',
      'invalid_grant',
    ]);
  });

  it('makes a credential of the person and the organization chosen: the CLI scopes, every API operation, no operator API, no dashboard page', async () => {
    const token = await login(ada, beta.org);
    const projects = await call(hub, 'GET', '/api/v1/projects', { token });
    expect(projects.status, projects.text).toBe(200);
    expect(projects.body.projects.map((project: { slug: string }) => project.slug)).toEqual([beta.project]);
    const credential = await call(hub, 'GET', '/api/v1/credential', { token });
    expect(credential.status, credential.text).toBe(200);
    expect(credential.body).toMatchObject({
      kind: 'cli',
      name: 'hub login on ada-laptop',
      prefix: token.slice(0, 16),
      scopes: CLI_SCOPES,
      organization: { id: orgIds[beta.org], slug: beta.org, name: beta.org },
      account: { id: ada, name: 'Ada', email: 'ada@example.com' },
      host: 'ada-laptop',
    });
    const audit = await call(hub, 'GET', '/api/v1/audit-events', { token });
    expect([audit.status, audit.body.requiredScope]).toEqual([403, 'audit:read']);
    expect((await call(hub, 'GET', '/api/admin/v1/organizations', { token })).status).toBe(401);
    const page = await fetch(`${hub.url}/keys`, { headers: { authorization: `Bearer ${token}` }, redirect: 'manual' });
    expect([page.status, page.headers.get('location')]).toEqual([303, '/sign-in']);
    // Listed for its person, not among the organization's API keys.
    expect((await store.cliCredentials(ada)).find((row) => row.prefix === token.slice(0, 16))).toMatchObject({
      host: 'ada-laptop',
      status: 'active',
      organization: { slug: beta.org },
    });
    expect((await store.apiKeys(orgIds[beta.org] as string)).map((key) => key.prefix)).not.toContain(
      token.slice(0, 16),
    );
    const [event] =
      await hub.sql`select kind, actor_kind, account_id, subject from audit_events where kind = 'cli_credential.created' and subject->>'prefix' = ${token.slice(0, 16)}`;
    expect(event).toMatchObject({ actor_kind: 'account', account_id: ada, subject: { host: 'ada-laptop' } });
  });

  it('tells an API key from a CLI credential', async () => {
    const credential = await call(hub, 'GET', '/api/v1/credential', { token: alpha.key });
    expect(credential.body).toMatchObject({
      kind: 'api_key',
      id: alpha.keyId,
      name: 'test',
      account: null,
      host: null,
      organization: { slug: alpha.org },
    });
    expect(
      (await call(hub, 'GET', '/api/v1/credential', { token: 'hub_cli_0000000000000000000000000000bogus' })).status,
    ).toBe(401);
    expect((await call(hub, 'GET', '/api/v1/credential')).status).toBe(401);
  });

  it('answers access_denied after the person denies, until the code expires; then expired_token', async () => {
    const { body } = await start();
    expect(await store.denyDevice(mia, body.user_code, ADDRESS)).toBe('denied');
    for (let i = 0; i < 2; i++) {
      const denied = await poll(body.device_code);
      expect([denied.status, denied.body.error]).toEqual([400, 'access_denied']);
    }
    const pending = await start();
    await hub.sql`update device_authorizations set created_at = now() - interval '11 minutes', expires_at = now() - interval '1 minute' where user_code = ${pending.body.user_code.replace('-', '')}`;
    const expired = await poll(pending.body.device_code);
    expect([expired.status, expired.body.error]).toEqual([400, 'expired_token']);
    expect(await store.deviceRequest(ada, pending.body.user_code, ADDRESS)).toEqual({ ok: false, reason: 'not_found' });
    expect(await store.approveDevice(ada, pending.body.user_code, orgIds[alpha.org] as string, ADDRESS)).toBe(
      'not_found',
    );
  });

  it('approves only for an organization of the person', async () => {
    const { body } = await start();
    expect(await store.approveDevice(mia, body.user_code, orgIds[beta.org] as string, ADDRESS)).toBe('forbidden');
    expect(await store.approveDevice(mia, body.user_code, 'not-an-id', ADDRESS)).toBe('forbidden');
    expect(await store.approveDevice(mia, body.user_code, orgIds[alpha.org] as string, ADDRESS)).toBe('approved');
  });

  it('refuses what the RFCs call invalid, with their error codes', async () => {
    const cases: [Promise<Awaited<ReturnType<typeof post>>>, string][] = [
      [post('/oauth/device_authorization', {}), 'invalid_request'],
      [post('/oauth/device_authorization', { client_id: 'gh-cli' }), 'invalid_client'],
      [post('/oauth/device_authorization', { client_id: ['hub-cli', 'hub-cli'] }), 'invalid_request'],
      [
        post('/oauth/device_authorization', { client_id: 'hub-cli', scope: 'projects:read audit:read' }),
        'invalid_scope',
      ],
      [post('/oauth/device_authorization', { client_id: 'hub-cli', hostname: 'a\u001b[31mb' }), 'invalid_request'],
      [call(hub, 'POST', '/oauth/device_authorization', { body: { client_id: 'hub-cli' } }), 'invalid_request'],
      [
        post('/oauth/token', { grant_type: 'authorization_code', client_id: 'hub-cli', device_code: 'x' }),
        'unsupported_grant_type',
      ],
      [post('/oauth/token', { grant_type: GRANT, client_id: 'hub-cli' }), 'invalid_request'],
      [post('/oauth/token', { grant_type: GRANT, client_id: 'hub-cli', device_code: 'unknown' }), 'invalid_grant'],
      [post('/oauth/revoke', { client_id: 'hub-cli' }), 'invalid_request'],
      [post('/oauth/revoke', { client_id: 'hub-cli', token: alpha.key }), 'unsupported_token_type'],
    ];
    for (const [answer, error] of cases) {
      const { status, body, text } = await answer;
      expect([status, body?.error], text).toEqual([400, error]);
      expect(body.error_description ?? '').toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/);
    }
    const narrow = await start({ scope: 'projects:read' });
    expect(await store.approveDevice(ada, narrow.body.user_code, orgIds[alpha.org] as string, ADDRESS)).toBe(
      'approved',
    );
    const token = await poll(narrow.body.device_code);
    expect(token.body.scope).toBe('projects:read');
    const refused = await call(hub, 'POST', '/api/v1/daemons/enrollment-tokens', {
      token: token.body.access_token,
      body: {},
    });
    expect([refused.status, refused.body.requiredScope]).toEqual([403, 'daemons:enroll']);
  });

  it('revokes a CLI credential held by its holder (RFC 7009), with its enrollment tokens; unknown ones are a 200 too', async () => {
    const token = await login(ada, alpha.org);
    const issued = await call(hub, 'POST', '/api/v1/daemons/enrollment-tokens', { token, body: {} });
    expect(issued.status, issued.text).toBe(201);
    const revoked = await post('/oauth/revoke', { client_id: 'hub-cli', token, token_type_hint: 'access_token' });
    expect([revoked.status, revoked.text]).toEqual([200, '']);
    expect((await call(hub, 'GET', '/api/v1/projects', { token })).status).toBe(401);
    const enroll = await call(hub, 'POST', '/api/v1/daemons/enroll', {
      body: { token: issued.body.token, name: 'late', publicKey: publicKey(), runtimes: [] },
    });
    expect(enroll.status, enroll.text).toBe(401);
    for (const again of [token, 'hub_cli_0000000000000000000000000000bogus', 'anything']) {
      expect((await post('/oauth/revoke', { client_id: 'hub-cli', token: again })).status).toBe(200);
    }
    // The API key is untouched by the refused revocation.
    expect((await call(hub, 'GET', '/api/v1/projects', { token: alpha.key })).status).toBe(200);
    const events =
      await hub.sql`select actor_kind from audit_events where kind = 'cli_credential.revoked' and subject->>'prefix' = ${token.slice(0, 16)}`;
    expect(events.map((event) => event.actor_kind)).toEqual(['key']);
  });

  it("revokes a person's CLI credentials in an organization they leave or are removed from, and only there", async () => {
    const inAlpha = await login(mia, alpha.org);
    const adaInAlpha = await login(ada, alpha.org);
    expect((await call(hub, 'GET', '/api/v1/projects', { token: inAlpha })).status).toBe(200);
    expect(await store.removeMember(ada, orgIds[alpha.org] as string, mia)).toBe('done');
    expect((await call(hub, 'GET', '/api/v1/projects', { token: inAlpha })).status).toBe(401);
    expect((await call(hub, 'GET', '/api/v1/projects', { token: adaInAlpha })).status).toBe(200);
    expect((await store.cliCredentials(mia)).every((row) => row.status === 'revoked')).toBe(true);
    // Approved while a member, collected after the removal: refused.
    await hub.sql`insert into organization_members (organization_id, account_id, role) values (${orgIds[alpha.org] as string}, ${mia}, 'member')`;
    const deviceCode = await approved(mia, alpha.org);
    expect(await store.removeMember(ada, orgIds[alpha.org] as string, mia)).toBe('done');
    const late = await poll(deviceCode);
    expect([late.status, late.body.error]).toEqual([400, 'access_denied']);
  });

  it('lets a person revoke their own CLI credential in the dashboard, not anyone else', async () => {
    const token = await login(ada, alpha.org);
    const row = (await store.cliCredentials(ada)).find((credential) => credential.prefix === token.slice(0, 16));
    expect(await store.revokeCliCredential(mia, row?.id as string)).toBe('not_found');
    expect((await call(hub, 'GET', '/api/v1/projects', { token })).status).toBe(200);
    expect(await store.revokeCliCredential(ada, row?.id as string)).toBe('revoked');
    expect((await call(hub, 'GET', '/api/v1/projects', { token })).status).toBe(401);
    expect(await store.revokeCliCredential(ada, row?.id as string)).toBe('revoked');
    // Nor can the keys page revoke it as if it were an API key.
    const other = await login(ada, alpha.org);
    const otherRow = (await store.cliCredentials(ada)).find((credential) => credential.prefix === other.slice(0, 16));
    expect(await store.revokeApiKey(ada, orgIds[alpha.org] as string, otherRow?.id as string)).toBe('not_found');
  });

  it('throttles unknown user codes per person (RFC 8628, section 5.1)', async () => {
    const [guesser] =
      await hub.sql`insert into accounts (email, name, password_hash) values ('eve@example.com', 'Eve', 'scrypt$x') returning id`;
    const eve = guesser?.id as string;
    for (let i = 0; i < 10; i++)
      expect(await store.deviceRequest(eve, 'BBBB-BBBB', GUESSER)).toEqual({ ok: false, reason: 'not_found' });
    const { body } = await start();
    expect(await store.deviceRequest(eve, body.user_code, GUESSER)).toMatchObject({ ok: false, reason: 'throttled' });
    expect(await store.deviceRequest(ada, body.user_code, ADDRESS)).toMatchObject({ ok: true });
  });
});
