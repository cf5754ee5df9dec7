// The verification page of `hub login` and the account's CLI logins as functions of plain data,
// and the two checks their routes rely on: a user code as typed, and where sign-in may return to.
import { describe, expect, it } from 'vitest';
import { accountPage, deviceCodePage, deviceConfirmPage, signInPage } from '../src/pages/index.js';
import type { CliCredentialRow, DeviceRequestView } from '../src/ports/cli-logins.js';
import { safeNext } from '../src/security.js';
import { userCodeOf } from '../src/forms.js';
import { HOSTILE, sessionOf } from './support/data.js';

const REQUEST: DeviceRequestView = {
  userCode: 'BCDF-GHJK',
  clientId: 'hub-cli',
  host: 'laptop.example',
  scopes: ['projects:read', 'runs:dispatch'],
  createdAt: new Date('2026-05-01T14:03:00Z'),
  expiresAt: new Date('2026-05-01T14:13:00Z'),
};

function login(overrides: Partial<CliCredentialRow> = {}): CliCredentialRow {
  return {
    id: 'cli-1',
    organization: { id: 'org-1', slug: 'acme', name: 'Acme' },
    host: 'laptop.example',
    prefix: 'hub_cli_abcd1234',
    scopes: ['projects:read'],
    createdAt: new Date('2026-05-01T14:03:00Z'),
    lastUsedAt: null,
    status: 'active',
    ...overrides,
  };
}

describe('userCodeOf', () => {
  it.each([
    ['BCDF-GHJK', 'BCDF-GHJK'],
    ['bcdfghjk', 'BCDF-GHJK'],
    [' bcdf ghjk ', 'BCDF-GHJK'],
    ['Bcdf-Ghjk', 'BCDF-GHJK'],
  ])('%j is %s', (typed, code) => {
    expect(userCodeOf(typed)).toBe(code);
  });

  it.each(['', 'BCDF-GHJ', 'BCDF-GHJKL', 'ABCD-EFGH', 'BCDF-GHJ1', 'BCDF_GHJK', HOSTILE])('%j is no code', (typed) => {
    expect(userCodeOf(typed)).toBeUndefined();
  });
});

describe('safeNext', () => {
  it.each(['/device', '/device?user_code=BCDF-GHJK', '/keys?page=2'])('%s is kept', (next) => {
    expect(safeNext(next)).toBe(next);
  });

  it.each([
    '//evil.example',
    '/\\evil.example',
    '/a\\b',
    'https://evil.example/',
    'device',
    '',
    '/\t/evil.example',
    '/x\n',
    '/é',
    ['/device'],
    undefined,
  ])('%j is refused', (next) => {
    expect(safeNext(next)).toBeUndefined();
  });

  it('refuses a path longer than 2048 characters', () => {
    expect(safeNext(`/${'a'.repeat(2047)}`)).toBeDefined();
    expect(safeNext(`/${'a'.repeat(2048)}`)).toBeUndefined();
  });
});

describe('the sign-in page', () => {
  it('carries where to return to as a hidden field, and only then', () => {
    expect(signInPage({ email: '', next: '/device?user_code=BCDF-GHJK' })).toContain(
      '<input type="hidden" name="next" value="/device?user_code=BCDF-GHJK"/>',
    );
    expect(signInPage({ email: '' })).not.toContain('name="next"');
  });
});

describe('the verification page', () => {
  const session = sessionOf('owner', `Ada ${HOSTILE}`);

  it('prefills the code, or asks for it', () => {
    expect(deviceCodePage({ session, code: 'BCDF-GHJK' })).toMatch(
      /<input id="user-code"[^>]* name="user_code" value="BCDF-GHJK"/,
    );
    const empty = deviceCodePage({ session, code: '', message: 'Type the code your terminal shows.' });
    expect(empty).toMatch(/<input id="user-code"[^>]* value required/);
    expect(empty).toContain('role="alert"');
  });

  it('shows the client, the host, each scope with its meaning, the expiry and the phishing warning', () => {
    const html = deviceConfirmPage({ session, request: REQUEST });
    for (const text of [
      'BCDF-GHJK',
      'hub-cli',
      'the Hub command-line client',
      'laptop.example',
      'projects:read',
      "list the organization's projects",
      'runs:dispatch',
      'start manual runs',
      '2026-05-01 14:13 UTC',
      'Approve only a login you started yourself',
    ]) {
      expect(html).toContain(text);
    }
    expect(html).toContain('action="/device/approve"');
    expect(html).toContain('formaction="/device/deny"');
    expect(html).toContain('<input type="hidden" name="user_code" value="BCDF-GHJK"/>');
  });

  it('says so when no host name was sent, and shows an unknown scope without a meaning', () => {
    const html = deviceConfirmPage({ session, request: { ...REQUEST, host: null, scopes: ['future:thing'] } });
    expect(html).toContain('no host name sent');
    expect(html).toContain('<li><code>future:thing</code></li>');
  });

  it('offers a choice of organization, the current one chosen, only to people in several', () => {
    const several = deviceConfirmPage({ session: { ...session, current: session.organizations[1] }, request: REQUEST });
    expect(several).toContain('<select id="organization-choice" name="organization"');
    expect(several).toContain('<option value="org-2" selected>');
    expect(several).toMatch(/<option value="org-1">/);
    const one = deviceConfirmPage({
      session: { ...session, organizations: session.organizations.slice(0, 1) },
      request: REQUEST,
    });
    expect(one).not.toContain('<select id="organization-choice"');
    expect(one).toContain('<input type="hidden" name="organization" value="org-1"/>');
  });

  it('offers only Deny to a person in no organization', () => {
    const html = deviceConfirmPage({
      session: { ...session, organizations: [], current: undefined },
      request: REQUEST,
    });
    expect(html).not.toContain('>Approve</button>');
    expect(html).toContain('formaction="/device/deny"');
  });

  it('escapes what the CLI sent, and has no inline script or style', () => {
    const html = deviceConfirmPage({ session, request: { ...REQUEST, host: HOSTILE, scopes: [HOSTILE] } });
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toContain('&lt;script>alert(1)&lt;/script>');
    expect(html).not.toContain('onfocus="');
    expect(html).not.toMatch(/\sstyle=|<style|\son[a-z]+="/);
  });
});

describe("the account's CLI logins", () => {
  const session = sessionOf('member');

  it('lists organization, host, prefix, times and status, with Revoke for active ones only', () => {
    const logins = [
      login(),
      login({
        id: 'cli-2',
        host: null,
        prefix: 'hub_cli_old00000',
        status: 'revoked',
        lastUsedAt: new Date('2026-05-02T08:00:00Z'),
      }),
    ];
    const html = accountPage({ session, cliLogins: logins });
    for (const text of [
      'CLI logins',
      'Acme',
      'laptop.example',
      'hub_cli_abcd1234',
      '2026-05-01 14:03 UTC',
      'never',
      '2026-05-02 08:00 UTC',
      'revoked',
      'no host name sent',
      'hub login',
    ]) {
      expect(html).toContain(text);
    }
    expect(html.match(/action="\/account\/cli-logins\/[^"]*\/revoke"/g)).toEqual([
      'action="/account/cli-logins/cli-1/revoke"',
    ]);
  });

  it('says how to get one when there is none', () => {
    const html = accountPage({ session, cliLogins: [] });
    expect(html).toContain('No CLI logins yet.');
    expect(html).toContain('Run <code>hub login</code>');
  });

  it('escapes the host and the id', () => {
    const html = accountPage({ session, cliLogins: [login({ id: 'a/../"x', host: HOSTILE })] });
    expect(html).toContain('action="/account/cli-logins/a%2F..%2F%22x/revoke"');
    expect(html).toContain('&lt;script>alert(1)&lt;/script>');
    expect(html).not.toContain('onfocus="');
  });
});
