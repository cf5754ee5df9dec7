import { describe, expect, it } from 'vitest';
import { clearedSessionCookie, readCookie, sessionCookie } from '../src/cookies.js';
import { keyProblem, setupProblem } from '../src/forms.js';
import { PAGE_HEADERS, PAGE_POLICY, sameOrigin } from '../src/security.js';

describe('the page policy', () => {
  it('loads only the hub’s own script and style, posts only to itself, is framed nowhere', () => {
    expect(PAGE_POLICY).toBe(
      "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(PAGE_POLICY).not.toContain('unsafe');
    expect(PAGE_HEADERS['Cache-Control']).toBe('no-store');
  });
});

describe('sameOrigin', () => {
  const publicUrl = 'https://hub.example.com/';
  it.each([
    [{ origin: 'https://hub.example.com' }, true],
    [{ origin: 'https://hub.example.com:443' }, true],
    [{ origin: 'https://evil.example.com' }, false],
    [{ origin: 'http://hub.example.com' }, false],
    [{ origin: 'https://hub.example.com.evil.net' }, false],
    [{ origin: 'null' }, false],
    [{ origin: 'null', referer: 'https://hub.example.com/keys' }, false],
    [{ referer: 'https://hub.example.com/keys?x=1' }, true],
    [{ referer: 'https://evil.example.com/https://hub.example.com/' }, false],
    [{ referer: 'not a url' }, false],
    [{}, false],
  ])('%o → %s', (headers, expected) => {
    expect(sameOrigin(headers, publicUrl)).toBe(expected);
  });

  it('compares ports', () => {
    expect(sameOrigin({ origin: 'http://localhost:8080' }, 'http://localhost:8080')).toBe(true);
    expect(sameOrigin({ origin: 'http://localhost:8081' }, 'http://localhost:8080')).toBe(false);
  });
});

describe('the session cookie', () => {
  it('is HttpOnly, SameSite=Lax, Path=/, and Secure only over https', () => {
    expect(sessionCookie('s3cr3t', 'https://hub.example.com')).toBe(
      'hub_session=s3cr3t; Path=/; HttpOnly; SameSite=Lax; Secure',
    );
    expect(sessionCookie('s3cr3t', 'http://localhost:8080')).toBe('hub_session=s3cr3t; Path=/; HttpOnly; SameSite=Lax');
    expect(clearedSessionCookie('https://hub.example.com')).toBe(
      'hub_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure',
    );
  });

  it.each([
    ['hub_session=abc', 'abc'],
    ['a=1; hub_session=abc; b=2', 'abc'],
    ['xhub_session=abc', undefined],
    ['hub_session="abc"', 'abc'],
    ['hub_session=%E0%A4%A', undefined],
    ['', undefined],
  ])('reads %s', (header, expected) => {
    expect(readCookie(header, 'hub_session')).toBe(expected);
  });
});

describe('form checks', () => {
  const good = {
    name: 'Ada',
    email: 'ada@example.com',
    password: 'correct horse battery',
    slug: 'acme',
    organizationName: 'Acme',
  };
  it.each([
    [{}, undefined],
    [{ name: '  ' }, 'Your name is required.'],
    [{ email: 'ada' }, 'Enter an e-mail address such as ada@example.com.'],
    [{ password: 'short' }, 'The password needs at least 12 characters.'],
    [{ slug: 'Acme' }, expect.stringContaining('slug')],
    [{ slug: '-acme' }, expect.stringContaining('slug')],
    [{ organizationName: 'a\u0000b' }, expect.stringContaining('cannot store')],
    [{ organizationName: '\ud800' }, expect.stringContaining('cannot store')],
  ])('setup %o', (change, expected) => {
    expect(setupProblem({ ...good, ...change })).toEqual(expected);
  });

  it.each([
    ['CI', ['runs:read'], undefined],
    ['', ['runs:read'], "The key's name is required."],
    ['CI', [], 'Choose at least one scope.'],
    ['CI', ['admin'], 'Choose scopes from the list.'],
    ['x'.repeat(201), ['runs:read'], "The key's name is longer than 200 characters."],
  ])('key %s %o', (name, scopes, expected) => {
    expect(keyProblem(name, scopes, ['projects:read', 'runs:read'])).toBe(expected);
  });
});
