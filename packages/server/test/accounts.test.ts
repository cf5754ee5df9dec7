// The dashboard's storage (accounts/store.ts) against a real PostgreSQL, on both databases.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres, { type Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../src/people/passwords.js';
import { dashboardStore, type DashboardStore } from '../src/dashboard/store.js';
import { AccountRepository } from '../src/people/sql/accounts.js';
import { ApiKeyRepository } from '../src/keys/sql.js';
import { DaemonRepository } from '../src/daemons/sql.js';
import { startEmbedded } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';
import { OrganizationRepository } from '../src/projects/sql.js';
import { databases, freshDatabase, type DatabaseKind } from './support/hub.js';

const PASSWORD = 'correct horse battery';
const sha256 = (text: string) => createHash('sha256').update(text).digest();
const MINUTE = 60_000;

/** A migrated database of the kind, and what it takes to clean up after it. */
async function database(kind: DatabaseKind): Promise<{ sql: Sql; url: string; close(): Promise<void> }> {
  if (kind === 'external') {
    const fresh = await freshDatabase();
    const sql = postgres(fresh.url, { max: 4, onnotice: () => {} });
    await migrate(sql);
    return { sql, url: fresh.url, close: async () => (await sql.end(), await fresh.drop()) };
  }
  const dir = mkdtempSync(join(tmpdir(), 'hub-accounts-'));
  const embedded = await startEmbedded(dir, randomBytes(16).toString('hex'), { debug: () => {}, warn: () => {} });
  const sql = postgres(embedded.url, { max: 4, onnotice: () => {} });
  await migrate(sql);
  return {
    sql,
    url: embedded.url,
    close: async () => (await sql.end(), await embedded.stop(), rmSync(dir, { recursive: true, force: true })),
  };
}

describe.each(databases)('the dashboard store on the %s database', (kind) => {
  let db: Awaited<ReturnType<typeof database>>;
  let store: DashboardStore;
  let passwordHash: string;
  let owner: { id: string; email: string; organizationId: string };
  let clock = Date.now();
  const now = () => new Date(clock);

  beforeAll(async () => {
    [db, passwordHash] = await Promise.all([database(kind), hashPassword(PASSWORD)]);
    store = dashboardStore(db.sql, { now });
  }, 120_000);
  afterAll(async () => db?.close());

  /** An account (with the shared password) in a new organization, with the role. */
  async function member(role: 'owner' | 'member', organizationId?: string) {
    const name = `p-${randomBytes(4).toString('hex')}`;
    const accounts = new AccountRepository(db.sql);
    const account = (await accounts.create({ email: `${name}@example.com`, name, passwordHash }))!;
    const orgId = organizationId ?? (await new OrganizationRepository(db.sql).create(name, `Org ${name}`))!.id;
    await accounts.addMember(orgId, account.id, role);
    return { ...account, organizationId: orgId, slug: name };
  }
  const address = () => `10.${[...randomBytes(3)].join('.')}`;
  /** The clock stands still between failures: the first leaves the window in 15 minutes. */
  const THROTTLED = { ok: false, reason: 'throttled', retryAfterSeconds: 15 * 60 };

  it('sets up once: one live token, one winner among concurrent completions, then refused', async () => {
    expect(await store.setupPending()).toBe(true);
    // Instances starting together: whichever issued last, one token is live.
    const issued = await Promise.all([store.issueSetupToken(), store.issueSetupToken(), store.issueSetupToken()]);
    const live = await db.sql`select digest from setup_tokens where consumed_at is null`;
    expect(live).toHaveLength(1);
    expect(
      issued.filter((value) => value !== undefined).map((value) => sha256(value as string).toString('hex')),
    ).toContain((live[0]?.digest as Buffer).toString('hex'));
    const first = issued.find((value) => value !== undefined)!;
    // A later start issues a fresh link; the one before stops working.
    const token = (await store.issueSetupToken())!;
    expect(token).not.toBe(first);
    expect(await db.sql`select 1 from setup_tokens where consumed_at is null`).toHaveLength(1);
    expect(
      await store.completeSetup(
        first,
        { name: 'Ada', email: 'ada@example.com', password: PASSWORD },
        { slug: 'first', name: 'First' },
      ),
    ).toEqual({ ok: false, reason: 'token_invalid' });
    expect(await db.sql`select 1 from setup_tokens where digest = ${sha256(token)}`).toHaveLength(1);

    const form = (slug: string, email = 'Ada@Example.com ') =>
      [
        { name: ' Ada ', email, password: PASSWORD },
        { slug, name: 'First' },
      ] as const;
    expect(await store.completeSetup(token, { ...form('x')[0], password: 'too short' }, form('x')[1])).toEqual({
      ok: false,
      reason: 'invalid_input',
    });
    expect(await store.completeSetup(token, ...form('Not A Slug'))).toEqual({ ok: false, reason: 'invalid_input' });
    expect(await store.completeSetup(randomBytes(32).toString('base64url'), ...form('first'))).toEqual({
      ok: false,
      reason: 'token_invalid',
    });
    await new OrganizationRepository(db.sql).create('taken', 'Taken');
    expect(await store.completeSetup(token, ...form('taken'))).toEqual({ ok: false, reason: 'organization_exists' });
    expect(await store.setupPending()).toBe(true); // and the token is still live:

    const results = await Promise.all(
      ['first', 'second', 'third'].map((slug) => store.completeSetup(token, ...form(slug))),
    );
    const winners = results.filter((result) => result.ok);
    expect(winners).toHaveLength(1);
    expect(results.filter((result) => !result.ok)).toEqual([
      { ok: false, reason: 'token_invalid' },
      { ok: false, reason: 'token_invalid' },
    ]);
    expect(await store.setupPending()).toBe(false);
    expect(await store.issueSetupToken()).toBeUndefined();
    expect(await store.completeSetup(token, ...form('fourth', 'other@example.com'))).toEqual({
      ok: false,
      reason: 'token_invalid',
    });

    const view = (await store.session((winners[0] as { sessionSecret: string }).sessionSecret))!;
    expect(view.account).toEqual({ id: expect.any(String), email: 'ada@example.com', name: 'Ada' });
    expect(view.organizations).toEqual([view.current]);
    expect(view.current).toMatchObject({ name: 'First', role: 'owner' });
    owner = { id: view.account.id, email: view.account.email, organizationId: view.current!.organizationId };
    const [row] = await db.sql`select password_hash from accounts`;
    expect(row?.password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
  });

  it('signs in with the right password; a wrong password and an unknown e-mail get the same answer', async () => {
    const from = address();
    const right = await store.signIn(' ADA@example.com', PASSWORD, from);
    expect(right).toEqual({ ok: true, sessionSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    const secret = (right as { sessionSecret: string }).sessionSecret;
    expect(await db.sql`select 1 from sessions where digest = ${sha256(secret)}`).toHaveLength(1);
    expect((await store.session(secret))?.current?.organizationId).toBe(owner.organizationId);

    const wrong = await store.signIn(owner.email, 'wrong password!', from);
    const unknown = await store.signIn('nobody@example.com', PASSWORD, from);
    expect(wrong).toEqual({ ok: false, reason: 'invalid' });
    expect(unknown).toEqual(wrong);
  });

  it('throttles an account after 5 failures in 15 minutes, across instances, and lets it in after', async () => {
    const person = await member('member');
    const other = postgres(db.url, { max: 4, onnotice: () => {} });
    const elsewhere = dashboardStore(other, { now });
    // Eight concurrent failures on two "instances": five are checked, three refused unchecked.
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? store : elsewhere).signIn(person.email, 'wrong password!', address()),
      ),
    );
    expect(answers.filter((answer) => !answer.ok && answer.reason === 'invalid')).toHaveLength(5);
    expect(answers.filter((answer) => !answer.ok && answer.reason === 'throttled')).toHaveLength(3);
    expect(await store.signIn(person.email, PASSWORD, address())).toEqual(THROTTLED);
    expect((await store.signIn(owner.email, PASSWORD, address())).ok).toBe(true);
    clock += 15 * MINUTE;
    expect((await store.signIn(person.email, PASSWORD, address())).ok).toBe(true);
    // The success cleared the account's failures: five more are checked.
    for (let i = 0; i < 5; i++)
      expect(await elsewhere.signIn(person.email, 'wrong password!', address())).toEqual({
        ok: false,
        reason: 'invalid',
      });
    expect(await elsewhere.signIn(person.email, PASSWORD, address())).toEqual(THROTTLED);
    await other.end();
  });

  it('throttles an address after 20 failures in 15 minutes', async () => {
    const from = address();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.signIn(`nobody-${i}@example.com`, PASSWORD, from)),
    );
    expect(answers.every((answer) => !answer.ok && answer.reason === 'invalid')).toBe(true);
    expect(await store.signIn(owner.email, PASSWORD, from)).toEqual(THROTTLED);
    expect((await store.signIn(owner.email, PASSWORD, address())).ok).toBe(true);
    expect(await store.signIn(owner.email, PASSWORD, `::ffff:${from}`)).toEqual(THROTTLED);
  });

  it('ends sessions idle too long or past their absolute expiry', async () => {
    const timed = dashboardStore(db.sql, { idleMs: 10 * MINUTE, absoluteMs: 60 * MINUTE, now });
    const person = await member('member');
    const secret = ((await timed.signIn(person.email, PASSWORD, address())) as { sessionSecret: string }).sessionSecret;
    const lastSeen = async () =>
      (await db.sql`select last_seen_at from sessions where digest = ${sha256(secret)}`)[0]?.last_seen_at as Date;
    const start = clock;
    clock += 30_000;
    expect(await timed.session(secret)).toBeDefined();
    expect((await lastSeen()).getTime()).toBe(start); // moved on at most once a minute
    for (let minutes = 9; minutes <= 54; minutes += 9) {
      clock = start + minutes * MINUTE;
      expect(await timed.session(secret)).toBeDefined();
      expect((await lastSeen()).getTime()).toBe(clock);
    }
    clock = start + 60 * MINUTE;
    expect(await timed.session(secret)).toBeUndefined();

    const idle = ((await timed.signIn(person.email, PASSWORD, address())) as { sessionSecret: string }).sessionSecret;
    clock += 10 * MINUTE - 1;
    expect(await timed.session(idle)).toBeDefined();
    clock += 10 * MINUTE;
    expect(await timed.session(idle)).toBeUndefined();
    expect(await timed.session('not a secret')).toBeUndefined();
  });

  it('signs out one session, leaving the others', async () => {
    const person = await member('member');
    const [one, two] = (
      await Promise.all([
        store.signIn(person.email, PASSWORD, address()),
        store.signIn(person.email, PASSWORD, address()),
      ])
    ).map((answer) => (answer as { sessionSecret: string }).sessionSecret) as [string, string];
    await store.signOut(one);
    expect(await store.session(one)).toBeUndefined();
    expect((await store.session(two))?.account.id).toBe(person.id);
    expect(await store.switchOrganization(one, person.slug)).toBe(false);
  });

  it("switches only to one of the account's own organizations", async () => {
    const person = await member('member');
    const second = await member('owner');
    await new AccountRepository(db.sql).addMember(second.organizationId, person.id, 'owner');
    const stranger = await member('owner');
    const secret = ((await store.signIn(person.email, PASSWORD, address())) as { sessionSecret: string }).sessionSecret;
    expect((await store.session(secret))?.organizations.map((org) => org.slug)).toEqual(
      [person.slug, second.slug].sort(),
    );
    expect(await store.switchOrganization(secret, second.slug)).toBe(true);
    expect((await store.session(secret))?.current).toEqual({
      organizationId: second.organizationId,
      slug: second.slug,
      name: `Org ${second.slug}`,
      role: 'owner',
    });
    expect(await store.switchOrganization(secret, stranger.slug)).toBe(false);
    expect(await store.switchOrganization(secret, 'no-such-org')).toBe(false);
    expect((await store.session(secret))?.current?.slug).toBe(second.slug);
  });

  it('creates keys for owners only, recording who, returning the secret once', async () => {
    const helper = await member('member', owner.organizationId);
    expect(
      await store.createApiKey(helper.id, owner.organizationId, { name: 'nope', scopes: ['projects:read'] }),
    ).toEqual({ ok: false, reason: 'forbidden' });
    const created = await store.createApiKey(owner.id, owner.organizationId, {
      name: 'CI',
      scopes: ['projects:read', 'runs:read'],
    });
    if (!created.ok) throw new Error('refused');
    expect(created.secret).toMatch(/^hub_pk_[0-9A-Za-z]{38}$/);
    expect(created.prefix).toBe(created.secret.slice(0, 15));
    const [row] = await db.sql`select digest, prefix, created_by_account_id from api_keys where id = ${created.id}`;
    expect(row).toEqual({ digest: sha256(created.secret), prefix: created.prefix, created_by_account_id: owner.id });
    expect(JSON.stringify(await db.sql`select * from api_keys`)).not.toContain(created.secret.slice(15));

    const operator = await new ApiKeyRepository(db.sql).create(
      owner.organizationId,
      { name: 'ops', prefix: 'hub_pk_ops00000', digest: randomBytes(32), scopes: ['projects:read'] },
      { kind: 'operator' },
    );
    const keys = await store.apiKeys(owner.organizationId);
    expect(keys).toEqual([
      {
        id: created.id,
        name: 'CI',
        prefix: created.prefix,
        scopes: ['projects:read', 'runs:read'],
        createdAt: expect.any(Date),
        createdBy: 'Ada',
        lastUsedAt: null,
        status: 'active',
      },
      {
        id: operator.id,
        name: 'ops',
        prefix: 'hub_pk_ops00000',
        scopes: ['projects:read'],
        createdAt: expect.any(Date),
        createdBy: null,
        lastUsedAt: null,
        status: 'active',
      },
    ]);
    expect(JSON.stringify(keys)).not.toContain(created.secret);
  });

  it("revokes for owners only, expiring the key's enrollment tokens", async () => {
    const helper = await member('member', owner.organizationId);
    const created = await store.createApiKey(owner.id, owner.organizationId, {
      name: 'daemons',
      scopes: ['daemons:enroll'],
    });
    if (!created.ok) throw new Error('refused');
    expect(
      await new DaemonRepository(db.sql).issueToken(owner.organizationId, created.id, randomBytes(32)),
    ).toBeDefined();
    expect(await store.revokeApiKey(helper.id, owner.organizationId, created.id)).toBe('forbidden');
    expect((await store.apiKeys(owner.organizationId)).find((key) => key.id === created.id)?.status).toBe('active');

    const other = await member('owner');
    expect(await store.revokeApiKey(other.id, other.organizationId, created.id)).toBe('not_found');
    expect(await store.revokeApiKey(owner.id, owner.organizationId, 'not-an-id')).toBe('not_found');
    expect(await store.revokeApiKey(owner.id, owner.organizationId, created.id)).toBe('revoked');
    expect((await store.apiKeys(owner.organizationId)).find((key) => key.id === created.id)?.status).toBe('revoked');
    const live =
      await db.sql`select 1 from enrollment_tokens where api_key_id = ${created.id} and consumed_at is null and expires_at > now()`;
    expect(live).toHaveLength(0);
  });
});

describe('password hashes', () => {
  it('are scrypt$N$r$p$salt$hash with a fresh salt, verified in constant time, NFC-normalized', async () => {
    const composed = 'caf\u00e9 au lait!';
    const [one, two] = await Promise.all([hashPassword(composed), hashPassword(composed)]);
    expect(one).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/);
    expect(one).not.toBe(two);
    const checks = await Promise.all([
      verifyPassword(composed, one),
      verifyPassword('cafe\u0301 au lait!', one),
      verifyPassword('cafe au lait!', one),
      verifyPassword(composed, one.slice(0, -4) + (one.endsWith('AAAA') ? 'BBBB' : 'AAAA')),
      verifyPassword(composed, 'scrypt$1048576000$8$1$AAAA$AAAA'),
    ]);
    expect(checks).toEqual([true, true, false, false, false]);
  });
});
