import { describe, expect, it } from 'vitest';
import { keyCreatedPage, keysPage, messagePage, revokeKeyPage, setupPage, signInPage } from '../src/pages/index.js';
/** The scopes a page is given (the hub passes its own list). */
const SCOPES = ['projects:read', 'configuration:validate', 'runs:read'];
import { HOSTILE, keyRow, sessionOf } from './support/data.js';

const SECRET = 'hub_abcd1234_s3cr3t-value-never-listed';

/** Only the page's own script tag, and no attribute the hostile value tried to open. */
function expectEscaped(html: string): void {
  expect(html.match(/<script/g)).toHaveLength(1);
  expect(html).toContain('<script src="/assets/dashboard.js" defer></script>');
  expect(html).not.toContain('onfocus="');
  expect(html).toContain('&lt;script>alert(1)&lt;/script>');
}

describe('every user-supplied value is escaped', () => {
  const session = sessionOf('owner', `Ada ${HOSTILE}`);
  const hostileKey = keyRow({ name: `key ${HOSTILE}`, createdBy: `Bob ${HOSTILE}`, prefix: `hub_${HOSTILE}` });
  it.each([
    [
      'keys',
      keysPage({
        scopes: SCOPES,
        session,
        keys: [hostileKey],
        form: { name: HOSTILE, scopes: [], message: 'Choose at least one scope.' },
      }),
    ],
    ['key created', keyCreatedPage({ session, name: HOSTILE, prefix: 'hub_abcd1234', secret: `${SECRET}${HOSTILE}` })],
    ['revoke', revokeKeyPage({ session, apiKey: { id: `key"/><script>`, name: HOSTILE, prefix: HOSTILE } })],
    ['sign in', signInPage({ email: HOSTILE, message: 'The e-mail address or the password is wrong.' })],
    [
      'setup',
      setupPage({
        token: HOSTILE,
        values: { name: HOSTILE, email: HOSTILE, slug: HOSTILE, organizationName: HOSTILE },
      }),
    ],
    ['message', messagePage({ title: 'Owners only', message: HOSTILE, session })],
  ])('%s', (_name, html) => {
    expectEscaped(html);
  });

  it("escapes a key's id in the revoke form's address", () => {
    const html = revokeKeyPage({ session, apiKey: { id: `a/../"x`, name: 'k', prefix: 'p' } });
    expect(html).toContain('action="/keys/a%2F..%2F%22x/revoke"');
  });
});

describe('the keys page', () => {
  const keys = [
    keyRow(),
    keyRow({
      id: 'key-2',
      name: 'Old',
      prefix: 'hub_old00000',
      status: 'revoked',
      lastUsedAt: new Date('2026-05-02T08:00:00Z'),
    }),
  ];

  it('lists prefix, scopes, times, creator and status, and never a secret', () => {
    const html = keysPage({ scopes: SCOPES, session: sessionOf('owner'), keys });
    for (const text of [
      'hub_abcd1234',
      'projects:read',
      'runs:dispatch',
      '2026-05-01 14:03 UTC',
      'never',
      '2026-05-02 08:00 UTC',
      'revoked',
      'Ada',
    ]) {
      expect(html).toContain(text);
    }
    expect(html).not.toContain(SECRET);
    expect(html).not.toMatch(/readonly/);
  });

  it('gives owners the create form with one checkbox per scope, and Revoke for active keys only', () => {
    const html = keysPage({ scopes: SCOPES, session: sessionOf('owner'), keys });
    expect(html).toContain('action="/keys"');
    for (const scope of SCOPES) expect(html).toContain(`name="scopes" value="${scope}"`);
    expect(html.match(/\/revoke"/g)).toHaveLength(1);
    expect(html).toContain('href="/keys/key-1/revoke"');
  });

  it('gives members the list and no form to create or revoke', () => {
    const html = keysPage({ scopes: SCOPES, session: sessionOf('member'), keys });
    expect(html).toContain('hub_abcd1234');
    expect(html).not.toContain('action="/keys');
    expect(html).not.toContain('/revoke');
    expect(html).not.toContain('name="scopes"');
  });

  it('says what to do when there is no key', () => {
    const html = keysPage({ scopes: SCOPES, session: sessionOf('owner'), keys: [] });
    expect(html).toContain('No API keys yet: create one to use the API.');
    expect(html).not.toContain('<table');
  });

  it('keeps the values of a refused form', () => {
    const html = keysPage({
      scopes: SCOPES,
      session: sessionOf('owner'),
      keys: [],
      form: { name: 'laptop', scopes: ['runs:read'], message: 'Choose at least one scope.' },
    });
    expect(html).toContain('value="laptop"');
    expect(html).toMatch(/value="runs:read" checked/);
    expect(html).not.toMatch(/value="projects:read" checked/);
  });
});

describe('other pages', () => {
  it('shows the secret once, read-only, with the warning and a copy button', () => {
    const html = keyCreatedPage({ session: sessionOf('owner'), name: 'CI', prefix: 'hub_abcd1234', secret: SECRET });
    expect(html).toMatch(new RegExp(`<input id="secret" class="code" readonly value="${SECRET}"`));
    expect(html).toContain('data-copy="secret"');
    expect(html).toContain('the only time the hub shows it');
  });

  it('never puts a password back into a form', () => {
    const values = { name: 'Ada', email: 'ada@example.com', slug: 'acme', organizationName: 'Acme' };
    const html = setupPage({ token: 't', values, message: 'x' });
    expect(html).toMatch(/<input id="password" name="password" type="password"(?![^>]*value=)[^>]*>/);
    expect(signInPage({ email: 'ada@example.com' })).toMatch(/<input id="password"(?![^>]*value=)[^>]*>/);
  });

  it('offers the organization switch only to people in several organizations', () => {
    const several = sessionOf('owner');
    expect(keysPage({ scopes: SCOPES, session: several, keys: [] })).toContain('action="/organization"');
    const one = { ...several, organizations: several.organizations.slice(0, 1) };
    expect(keysPage({ scopes: SCOPES, session: one, keys: [] })).not.toContain('action="/organization"');
  });

  it('uses no style attribute and no inline script', () => {
    const html = keysPage({ scopes: SCOPES, session: sessionOf('owner'), keys: [keyRow()] });
    expect(html).not.toMatch(/\sstyle=|<style|\son[a-z]+="/);
  });
});
