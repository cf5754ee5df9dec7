// Members, invitations and the account page against real hubs (child processes) on both
// databases; then invitation and acceptance in two Chromium contexts, photographed at 375 and 1280 px.
import { createHash } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../server/src/people/passwords.js';
import { browsable, launchBrowser, shoot } from './support/browser.js';
import { databases, hubOn } from '../../server/test/support/hub.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a whole new password, long';
const HOSTILE = `<script>alert(1)</script>"'`;
const INVITATION = /\/invitations\/([A-Za-z0-9_-]{43})/;

type Hub = Awaited<ReturnType<typeof hubOn>>;

function setupLink(hub: Hub): string {
  const match = /Set up the hub \(one time; also in [^)]*\): (\S+)/.exec(hub.output());
  if (match === null) throw new Error(`no setup link in:\n${hub.output()}`);
  return match[1] as string;
}

function form(hub: Hub, path: string, fields: Record<string, string>, cookie?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', origin: hub.url };
  if (cookie !== undefined) headers.cookie = cookie;
  return fetch(`${hub.url}${path}`, { method: 'POST', redirect: 'manual', headers, body: new URLSearchParams(fields) });
}

const page = (hub: Hub, path: string, cookie?: string) =>
  fetch(`${hub.url}${path}`, { redirect: 'manual', headers: cookie === undefined ? {} : { cookie } });
const cookieOf = (response: Response) => (response.headers.get('set-cookie') ?? '').split(';')[0] as string;
const accountId = async (hub: Hub, email: string) =>
  ((await hub.sql`select id from accounts where email = ${email}`)[0]?.id ?? '') as string;

async function setUp(hub: Hub): Promise<string> {
  const token = new URL(setupLink(hub)).searchParams.get('token') as string;
  const fields = {
    token,
    name: `Ada ${HOSTILE}`,
    email: 'ada@example.com',
    password: PASSWORD,
    slug: 'acme',
    organizationName: `Acme ${HOSTILE}`,
  };
  return cookieOf(await form(hub, '/setup', fields));
}

/** A new account made through the link; its session cookie. */
async function join(hub: Hub, token: string, name: string, email: string): Promise<string> {
  const joined = await form(hub, `/invitations/${token}`, { name, email, password: PASSWORD });
  expect(joined.status).toBe(303);
  return cookieOf(joined);
}

/** An account of no organization, made in the database; its id. */
async function account(hub: Hub, name: string, email: string): Promise<string> {
  const [row] = await hub.sql`
    insert into accounts (email, name, password_hash) values (${email}, ${name}, ${await hashPassword(PASSWORD)}) returning id`;
  return row?.id as string;
}

/** The actor and reason of the invitation.revoked events of the inviter's invitations. */
async function endedBy(hub: Hub, inviterId: string): Promise<{ actor: string; reason: string }[]> {
  const rows = await hub.sql<{ actor: string; reason: string }[]>`
    select account_id as actor, subject->>'reason' as reason from audit_events
    where kind = 'invitation.revoked' and subject->>'invitedById' = ${inviterId}`;
  return rows.map((row) => ({ actor: row.actor, reason: row.reason }));
}

/** The account's role in acme, or undefined when it is no member. */
async function roleIn(hub: Hub, id: string): Promise<string | undefined> {
  const [row] = await hub.sql`
    select m.role from organization_members m join organizations o on o.id = m.organization_id
    where o.slug = 'acme' and m.account_id = ${id}`;
  return row?.role as string | undefined;
}

async function invite(hub: Hub, cookie: string, role: 'owner' | 'member'): Promise<string> {
  const created = await form(hub, '/members/invitations', { role }, cookie);
  expect(created.status).toBe(201);
  return INVITATION.exec(await created.text())?.[1] as string;
}

describe.each(databases)('members on the %s database', (kind) => {
  let hub: Hub;
  let owner = '';
  let member = '';

  beforeAll(async () => {
    hub = await hubOn(kind);
    owner = await setUp(hub);
  }, 120_000);
  afterAll(async () => hub?.close());

  it('invites with a one-time link whose digest alone is stored, and a new account accepts it', async () => {
    const token = await invite(hub, owner, 'member');
    const [row] = await hub.sql`select digest, expires_at - created_at as ttl from invitations`;
    expect(Buffer.from(row?.digest as Buffer).equals(createHash('sha256').update(token).digest())).toBe(true);
    const shown = await page(hub, `/invitations/${token}`);
    expect(shown.status).toBe(200);
    const html = await shown.text();
    expect(html).toContain('Acme &lt;script>');
    expect(html).not.toContain('<script>alert');
    const accepted = await form(hub, `/invitations/${token}`, {
      name: `Mia ${HOSTILE}`,
      email: 'mia@example.com',
      password: PASSWORD,
    });
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get('location')).toBe('/keys');
    member = cookieOf(accepted);
    const members = await (await page(hub, '/members', owner)).text();
    expect(members).toContain(`Mia &lt;script>alert(1)&lt;/script>&quot;'`);
    expect(members).not.toContain('<script>alert');
  });

  it('shows the member the keys without management, and refuses their management POSTs with 403', async () => {
    const keys = await page(hub, '/keys', member);
    expect(keys.status).toBe(200);
    const html = await keys.text();
    expect(html).toContain('Keys of');
    expect(html).not.toContain('action="/keys"');
    const membersPage = await (await page(hub, '/members', member)).text();
    expect(membersPage).not.toContain('action="/members/invitations"');
    const ada = await accountId(hub, 'ada@example.com');
    for (const [path, fields] of [
      ['/keys', { name: 'x', scopes: 'runs:read' }],
      ['/members/invitations', { role: 'owner' }],
      [`/members/${ada}/remove`, {}],
      [`/members/${ada}/role`, { role: 'member' }],
    ] as const) {
      expect((await form(hub, path, fields, member)).status, path).toBe(403);
    }
    const [count] = await hub.sql`select count(*)::int as n from organization_members where role = 'owner'`;
    expect(count?.n).toBe(1);
  });

  it('refuses an invitation used twice, and an expired one', async () => {
    const token = await invite(hub, owner, 'member');
    expect(
      (await form(hub, `/invitations/${token}`, { name: 'Bo', email: 'bo@example.com', password: PASSWORD })).status,
    ).toBe(303);
    const twice = await form(hub, `/invitations/${token}`, { name: 'Cy', email: 'cy@example.com', password: PASSWORD });
    expect(twice.status).toBe(410);
    expect(await twice.text()).toContain('was used already');
    const expiring = await invite(hub, owner, 'owner');
    await hub.sql`update invitations set created_at = now() - interval '8 days', expires_at = now() - interval '1 day' where consumed_at is null`;
    expect((await page(hub, `/invitations/${expiring}`)).status).toBe(410);
    const late = await form(hub, `/invitations/${expiring}`, {
      name: 'Di',
      email: 'di@example.com',
      password: PASSWORD,
    });
    expect(late.status).toBe(410);
    expect(await late.text()).toContain('has expired');
    const [accounts] =
      await hub.sql`select count(*)::int as n from accounts where email in ('cy@example.com', 'di@example.com')`;
    expect(accounts?.n).toBe(0);
  });

  it('keeps the last owner: not removed, not demoted, not leaving; of two owners removing each other, one stays', async () => {
    const ada = await accountId(hub, 'ada@example.com');
    const mia = await accountId(hub, 'mia@example.com');
    expect((await form(hub, `/members/${ada}/remove`, {}, owner)).status).toBe(409);
    expect((await form(hub, `/members/${ada}/role`, { role: 'member' }, owner)).status).toBe(409);
    expect((await form(hub, '/members/leave', {}, owner)).status).toBe(409);
    expect((await form(hub, `/members/${mia}/role`, { role: 'owner' }, owner)).status).toBe(303);
    const answers = await Promise.all([
      form(hub, `/members/${mia}/remove`, {}, owner),
      form(hub, `/members/${ada}/remove`, {}, member),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([303, 403]);
    const [owners] =
      await hub.sql`select count(*)::int as n from organization_members m join organizations o on o.id = m.organization_id where o.slug = 'acme' and role = 'owner'`;
    expect(owners?.n).toBe(1);
    // Whichever won, Ada is acme's owner for the tests that follow.
    await hub.sql`
      insert into organization_members (organization_id, account_id, role) select id, ${ada}, 'owner' from organizations where slug = 'acme'
      on conflict (organization_id, account_id) do update set role = 'owner'`;
  });

  it('changes the password: the other sessions end, this one stays, the new password signs in and the old does not', async () => {
    const other = cookieOf(await form(hub, '/sign-in', { email: 'ada@example.com', password: PASSWORD }));
    expect((await page(hub, '/keys', other)).status).toBe(200);
    expect(
      (
        await form(
          hub,
          '/account/password',
          { current: 'not my password', password: NEW_PASSWORD, repeat: NEW_PASSWORD },
          owner,
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await form(
          hub,
          '/account/password',
          { current: PASSWORD, password: NEW_PASSWORD, repeat: 'something else entirely' },
          owner,
        )
      ).status,
    ).toBe(422);
    const changed = await form(
      hub,
      '/account/password',
      { current: PASSWORD, password: NEW_PASSWORD, repeat: NEW_PASSWORD },
      owner,
    );
    expect(changed.status).toBe(303);
    expect((await page(hub, '/keys', other)).headers.get('location')).toBe('/sign-in');
    expect((await page(hub, '/account', owner)).status).toBe(200);
    expect((await form(hub, '/sign-in', { email: 'ada@example.com', password: PASSWORD })).status).toBe(401);
    expect((await form(hub, '/sign-in', { email: 'ada@example.com', password: NEW_PASSWORD })).status).toBe(303);
  });

  it('creates another organization, owned by its creator and current, and switches back', async () => {
    expect((await form(hub, '/account/organizations', { slug: 'acme', name: 'Taken' }, owner)).status).toBe(409);
    const created = await form(hub, '/account/organizations', { slug: 'beta', name: `Beta ${HOSTILE}` }, owner);
    expect(created.status).toBe(303);
    const keys = await (await page(hub, '/keys', owner)).text();
    expect(keys).toContain('Keys of <strong>Beta &lt;script>');
    const members = await (await page(hub, '/members', owner)).text();
    expect(members.match(/<td data-label="Role">owner<\/td>/g)).toHaveLength(1);
    // Its only owner is offered nothing that would fail (issue 25), and told why.
    expect(members).toContain(
      'You are the only owner: make another member an owner before you step down, leave or are removed.',
    );
    expect(members).toContain('the only owner</span>');
    expect(members).not.toMatch(/Make member|>Remove<|href="\/members\/leave"/);
    // Nor when it opens the leave page by its address: no button the hub would refuse.
    const leave = await (await page(hub, '/members/leave', owner)).text();
    expect(leave).toContain('You are the only owner');
    expect(leave).not.toContain('action="/members/leave"');
    // With a second owner, each is offered all three again.
    const second = await account(hub, 'Bea', 'bea@example.com');
    await hub.sql`
      insert into organization_members (organization_id, account_id, role)
      select id, ${second}, 'owner' from organizations where slug = 'beta'`;
    const shared = await (await page(hub, '/members', owner)).text();
    expect(shared.match(/Make member/g)).toHaveLength(2);
    expect(shared).toContain('href="/members/leave"');
    expect(shared).not.toContain('You are the only owner');
    expect((await form(hub, '/organization', { slug: 'acme' }, owner)).status).toBe(303);
    expect(await (await page(hub, '/keys', owner)).text()).toContain('Keys of <strong>Acme &lt;script>');
  });

  // Issue 24, finding 1: an invitation ends with its inviter's removal or demotion.
  it('ends an owner invitation with its inviter’s removal: Dave, removed, cannot come back as owner by his own link', async () => {
    const dave = await join(hub, await invite(hub, owner, 'owner'), 'Dave', 'dave@example.com');
    const daveId = await accountId(hub, 'dave@example.com');
    const comeback = await invite(hub, dave, 'owner');
    expect((await form(hub, `/members/${daveId}/remove`, {}, owner)).status).toBe(303);
    const accepted = await form(hub, `/invitations/${comeback}`, {}, dave);
    expect(await roleIn(hub, daveId)).toBeUndefined();
    expect(accepted.status).toBe(410);
    expect(await accepted.text()).toContain('no longer works');
    expect((await page(hub, `/invitations/${comeback}`, dave)).status).toBe(410);
    expect(await endedBy(hub, daveId)).toEqual([
      { actor: await accountId(hub, 'ada@example.com'), reason: 'inviter_removed' },
    ]);
    expect(await (await page(hub, '/audit', owner)).text()).toContain('inviter removed or left');
  });

  it('ends an owner invitation with its inviter’s demotion: Eve’s link, passed on, makes nobody an owner', async () => {
    const eve = await join(hub, await invite(hub, owner, 'owner'), 'Eve', 'eve@example.com');
    const eveId = await accountId(hub, 'eve@example.com');
    const eves = await invite(hub, eve, 'owner');
    expect((await form(hub, `/members/${eveId}/role`, { role: 'member' }, owner)).status).toBe(303);
    const taken = await form(hub, `/invitations/${eves}`, {
      name: 'Fay',
      email: 'fay@example.com',
      password: PASSWORD,
    });
    expect(taken.status).toBe(410);
    expect(await accountId(hub, 'fay@example.com')).toBe('');
    expect(await roleIn(hub, eveId)).toBe('member');
    expect(await endedBy(hub, eveId)).toEqual([
      { actor: await accountId(hub, 'ada@example.com'), reason: 'inviter_demoted' },
    ]);
  });

  it('lists the live invitations on the members page; owners revoke them there, members neither see nor forge it', async () => {
    const token = await invite(hub, owner, 'member');
    const [row] =
      await hub.sql`select id from invitations where digest = ${createHash('sha256').update(token).digest()}`;
    const id = row?.id as string;
    const revoke = `/members/invitations/${id}/revoke`;
    const listed = await (await page(hub, '/members', owner)).text();
    expect(listed).toContain('Open invitations');
    expect(listed).toContain(`action="${revoke}"`);
    expect(listed).toMatch(/<td data-label="Invited by">Ada &lt;script>/);

    const gus = await join(hub, await invite(hub, owner, 'member'), 'Gus', 'gus@example.com');
    const seen = await (await page(hub, '/members', gus)).text();
    expect(seen).toContain('Open invitations');
    expect(seen).toContain('data-label="Invited by"');
    expect(seen).not.toContain('/revoke"');
    expect((await form(hub, revoke, {}, gus)).status).toBe(403);
    const crossSite = await fetch(`${hub.url}${revoke}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', cookie: owner },
      body: '',
    });
    expect(crossSite.status).toBe(403);
    expect((await page(hub, `/invitations/${token}`)).status).toBe(200);

    const revoked = await form(hub, revoke, {}, owner);
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('location')).toBe('/members');
    expect(await (await page(hub, '/members', owner)).text()).not.toContain(revoke);
    expect((await form(hub, revoke, {}, owner)).status).toBe(404);
    expect((await page(hub, `/invitations/${token}`)).status).toBe(410);
    const late = await form(hub, `/invitations/${token}`, {
      name: 'Hal',
      email: 'hal@example.com',
      password: PASSWORD,
    });
    expect(late.status).toBe(410);
    expect(await accountId(hub, 'hal@example.com')).toBe('');

    const ada = await accountId(hub, 'ada@example.com');
    const gusId = await accountId(hub, 'gus@example.com');
    const events = await hub.sql`
      select kind, account_id as actor, subject from audit_events
      where kind like 'invitation.%' and (subject->>'invitationId' = ${id} or account_id = ${gusId})`;
    const kinds = events.map((event) => [event.kind, event.actor]);
    expect(kinds).toEqual(
      expect.arrayContaining([
        ['invitation.created', ada],
        ['invitation.revoked', ada],
        ['invitation.accepted', gusId],
      ]),
    );
    expect(events.find((event) => event.kind === 'invitation.revoked')?.subject).toMatchObject({ role: 'member' });
  });

  // Issue 24, finding 9: the sign-up form of a link does not tell whether an e-mail has an account.
  it('answers a sign-up with an account’s e-mail as a sign-in: a wrong password as a wrong sign-in, throttled alike; the right one joins', async () => {
    // Ivy has an account, but not in acme; Jo's e-mail too, for the throttle.
    const ivyId = await account(hub, 'Ivy', 'ivy@example.com');
    await account(hub, 'Jo', 'jo@example.com');
    const token = await invite(hub, owner, 'member');
    const signIn = await form(hub, '/sign-in', { email: 'ivy@example.com', password: 'not the right password' });
    const signInText = await signIn.text();
    expect(signIn.status).toBe(401);
    const wrong = await form(hub, `/invitations/${token}`, {
      name: 'Someone',
      email: 'ivy@example.com',
      password: 'not the right password',
    });
    expect(wrong.status).toBe(signIn.status);
    const wrongText = await wrong.text();
    const message = 'The e-mail address or the password is wrong.';
    expect(signInText).toContain(message);
    expect(wrongText).toContain(message);
    expect(wrongText).not.toMatch(/exists/i);
    const digest = createHash('sha256').update(token).digest();
    const [live] =
      await hub.sql`select count(*)::int as n from invitations where digest = ${digest} and consumed_at is null`;
    expect(live?.n).toBe(1);
    const [counted] =
      await hub.sql`select count(*)::int as n from sign_in_failures where key = 'account:ivy@example.com'`;
    expect(counted?.n).toBe(2);

    for (let attempt = 0; attempt < 5; attempt += 1)
      await form(hub, `/invitations/${token}`, { name: 'S', email: 'jo@example.com', password: 'still not right, no' });
    expect((await form(hub, '/sign-in', { email: 'jo@example.com', password: PASSWORD })).status).toBe(429);
    const throttled = await form(hub, `/invitations/${token}`, {
      name: 'S',
      email: 'jo@example.com',
      password: PASSWORD,
    });
    expect(throttled.status).toBe(429);
    expect(await throttled.text()).toContain('Too many failed sign-ins');

    const joined = await form(hub, `/invitations/${token}`, {
      name: 'Not Ivy’s name',
      email: 'Ivy@Example.com',
      password: PASSWORD,
    });
    expect(joined.status).toBe(303);
    expect(joined.headers.get('location')).toBe('/keys');
    expect((await page(hub, '/keys', cookieOf(joined))).status).toBe(200);
    expect(await roleIn(hub, ivyId)).toBe('member');
    const [named] = await hub.sql`select name from accounts where id = ${ivyId}`;
    expect(named?.name).toBe('Ivy');
  });
});

describe.skipIf(!browsable).each(databases)('members in a browser, on the %s database', (kind) => {
  let hub: Hub;
  let browser: Browser;

  beforeAll(async () => {
    hub = await hubOn(kind);
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await hub?.close();
  });

  it('invites, and a second browser accepts with a new account and sees the keys without managing them', async () => {
    const ownerContext = await browser.newContext();
    const ownerPage = await ownerContext.newPage();
    await ownerPage.goto(setupLink(hub));
    await ownerPage.fill('#name', 'Ada Lovelace');
    await ownerPage.fill('#email', 'ada@example.com');
    await ownerPage.fill('#password', PASSWORD);
    await ownerPage.fill('#slug', 'acme');
    await ownerPage.fill('#organization-name', 'Acme');
    await Promise.all([ownerPage.waitForURL(/\/keys$/), ownerPage.click('button[type=submit]')]);
    await Promise.all([ownerPage.waitForURL(/\/members$/), ownerPage.click('nav.sections a[href="/members"]')]);
    // The only owner, at the leave page's address: told why, with no button (issue 25).
    await ownerPage.goto(`${hub.url}/members/leave`);
    expect(await ownerPage.textContent('main')).toContain('You are the only owner');
    expect(await ownerPage.locator('form[action="/members/leave"]').count()).toBe(0);
    await shoot(ownerPage, 'leave-sole-owner');
    await ownerPage.goto(`${hub.url}/members`);
    await Promise.all([
      ownerPage.waitForLoadState(),
      ownerPage.click('form[action="/members/invitations"] button[type=submit]'),
    ]);
    const link = await ownerPage.inputValue('#invitation-link');
    expect(link).toMatch(INVITATION);
    await shoot(ownerPage, 'invitation-created');

    const memberContext = await browser.newContext();
    const memberPage = await memberContext.newPage();
    await memberPage.goto(link);
    await shoot(memberPage, 'invitation');
    await memberPage.fill('#name', 'Mia Member');
    await memberPage.fill('#email', 'mia@example.com');
    await memberPage.fill('#password', PASSWORD);
    await Promise.all([memberPage.waitForURL(/\/keys$/), memberPage.click('button[type=submit]')]);
    expect(await memberPage.locator('form[action="/keys"]').count()).toBe(0);
    expect(await memberPage.textContent('main')).toContain('Only owners create and revoke keys.');
    await memberContext.close();

    await ownerPage.goto(`${hub.url}/members`);
    await ownerPage.check('form[action="/members/invitations"] input[value=owner]');
    await Promise.all([
      ownerPage.waitForLoadState(),
      ownerPage.click('form[action="/members/invitations"] button[type=submit]'),
    ]);
    const ownerLink = await ownerPage.inputValue('#invitation-link');
    await ownerPage.goto(`${hub.url}/members`);
    expect(await ownerPage.textContent('main')).toContain('Mia Member');
    expect(await ownerPage.locator('table.invitations tbody tr').count()).toBe(1);
    await shoot(ownerPage, 'members');
    await Promise.all([ownerPage.waitForURL(/\/members$/), ownerPage.click('table.invitations button[type=submit]')]);
    expect(await ownerPage.locator('table.invitations').count()).toBe(0);
    await ownerPage.goto(`${hub.url}/audit`);
    expect(await ownerPage.textContent('main')).toContain('Invitation revoked');
    await shoot(ownerPage, 'audit-invitations');
    const ended = await ownerPage.goto(ownerLink);
    expect(ended?.status()).toBe(410);
    await shoot(ownerPage, 'invitation-ended');
    await Promise.all([ownerPage.waitForURL(/\/account$/), ownerPage.click('a.account')]);
    await shoot(ownerPage, 'account');
    await ownerContext.close();
  }, 60_000);
});
