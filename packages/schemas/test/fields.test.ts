import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  acceptableEmail,
  formatUserCode,
  isSlug,
  isUuid,
  nameIssue,
  normalizeEmail,
  normalizeName,
  parseUserCode,
  passwordIssue,
  USER_CODE_ALPHABET,
  USER_CODE_LENGTH,
} from '../src/fields.js';

describe('slugs', () => {
  it.each([
    ['acme', true],
    ['a', true],
    ['0-day', true],
    ['a'.repeat(63), true],
    ['a'.repeat(64), false],
    ['Acme', false],
    ['-acme', false],
    ['', false],
    ['ac me', false],
    ['acme\n', false],
  ])('%j → %s', (slug, expected) => {
    expect(isSlug(slug)).toBe(expected);
  });
});

describe('names', () => {
  it.each([
    ['Ada', undefined],
    [' Ada ', undefined],
    ['   ', 'required'],
    ['', 'required'],
    ['x'.repeat(200), undefined],
    ['x'.repeat(201), 'too_long'],
    // Code points, not UTF-16 units: 200 emoji are 400 units and still a name.
    ['😀'.repeat(200), undefined],
    ['😀'.repeat(201), 'too_long'],
    ['a\u0000b', 'unstorable'],
    ['a\tb', 'unstorable'],
    ['a\u0085b', 'unstorable'],
    ['\ud800', 'unstorable'],
    ['Zoë', undefined],
  ])('%j → %s', (name, expected) => {
    expect(nameIssue(name)).toBe(expected);
  });

  it('normalizes to NFC and trims', () => {
    expect(normalizeName(' Zoe\u0308 ')).toBe('Zoë');
  });
});

describe('e-mails', () => {
  it.each([
    ['ada@example.com', true],
    [' Ada@Example.com ', true],
    ['a@b', true],
    ['ada', false],
    ['ada@', false],
    ['@example.com', false],
    ['a b@example.com', false],
    ['ada@exa@mple.com', false],
    ['ada\u0000@example.com', false],
    ['ada\u0085@example.com', false],
    ['\ud800@example.com', false],
    [`${'a'.repeat(242)}@example.com`, true],
    [`${'a'.repeat(243)}@example.com`, false],
  ])('%j → %s', (email, expected) => {
    expect(acceptableEmail(email)).toBe(expected);
  });

  it('are stored in NFC, trimmed, lower-cased', () => {
    expect(normalizeEmail(' Ada@Example.COM ')).toBe('ada@example.com');
  });
});

describe('passwords', () => {
  it.each([
    ['correct horse battery', undefined],
    ['x'.repeat(12), undefined],
    ['x'.repeat(11), 'too_short'],
    ['short', 'too_short'],
    ['x'.repeat(1024), undefined],
    ['x'.repeat(1025), 'too_long'],
    // Six emoji are twelve UTF-16 units, but six code points.
    ['😀'.repeat(6), 'too_short'],
    // e + combining diaeresis, twelve times, is twelve ë after NFC.
    ['e\u0308'.repeat(12), undefined],
    ['e\u0308'.repeat(11), 'too_short'],
    [`${'x'.repeat(12)}\ud800`, 'unstorable'],
  ])('%j → %s', (password, expected) => {
    expect(passwordIssue(password)).toBe(expected);
  });
});

describe('UUIDs', () => {
  it.each([
    ['9d3b6f0a-2c4e-4a8b-b7d1-5e6f0a9c3b28', true],
    ['9D3B6F0A-2C4E-4A8B-B7D1-5E6F0A9C3B28', true],
    ['9d3b6f0a2c4e4a8bb7d15e6f0a9c3b28', false],
    ['9d3b6f0a-2c4e-4a8b-b7d1-5e6f0a9c3b2', false],
    ['9d3b6f0a-2c4e-4a8b-b7d1-5e6f0a9c3b28\n', false],
    ['', false],
    ['org-1', false],
  ])('%j → %s', (id, expected) => {
    expect(isUuid(id)).toBe(expected);
  });
});

describe('user codes', () => {
  it.each([
    ['BCDF-GHJK', 'BCDFGHJK'],
    ['bcdfghjk', 'BCDFGHJK'],
    [' bcdf ghjk ', 'BCDFGHJK'],
    ['Bcdf-Ghjk', 'BCDFGHJK'],
    ['BC-DF GH-JK', 'BCDFGHJK'],
  ])('%j is %s', (typed, code) => {
    expect(parseUserCode(typed)).toBe(code);
  });

  it.each(['', 'BCDF-GHJ', 'BCDF-GHJKL', 'ABCD-EFGH', 'BCDF-GHJ1', 'BCDF_GHJK', '<script>'])(
    '%j is no code',
    (typed) => {
      expect(parseUserCode(typed)).toBeUndefined();
    },
  );

  it('is shown as XXXX-XXXX', () => {
    expect(formatUserCode('BCDFGHJK')).toBe('BCDF-GHJK');
  });

  const code = fc
    .array(fc.constantFrom(...USER_CODE_ALPHABET), { minLength: USER_CODE_LENGTH, maxLength: USER_CODE_LENGTH })
    .map((letters) => letters.join(''));

  it('reads back what it shows, in any case', () => {
    fc.assert(
      fc.property(code, fc.boolean(), (stored, lower) => {
        const shown = formatUserCode(stored);
        expect(shown).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
        expect(parseUserCode(lower ? shown.toLowerCase() : shown)).toBe(stored);
      }),
    );
  });

  it('parses to a code that parses to itself, or to nothing', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 16 }), (typed) => {
        const parsed = parseUserCode(typed);
        if (parsed !== undefined) expect(parseUserCode(parsed)).toBe(parsed);
      }),
    );
  });
});
