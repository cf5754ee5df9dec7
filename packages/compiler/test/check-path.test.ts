import { describe, expect, it } from 'vitest';
import { checkPath, foldPath } from '../src/index.js';

describe('checkPath', () => {
  it.each([
    'testing.md',
    'review/security.md',
    'a/b/c/d.txt',
    'café.md',
    '.hidden',
    'x..y.md',
    'spaces are fine.md',
    'a'.repeat(512),
    '😀'.repeat(512),
  ])('accepts the canonical path %j', (path) => {
    expect(checkPath(path)).toEqual({ ok: true, path });
  });

  it.each([
    ['/etc/passwd', 'absolute'],
    ['../secret.md', 'a .. segment'],
    ['a/../../b.md', 'a .. segment inside'],
    ['a/..', 'a trailing .. segment'],
    ['a\\b.md', 'a backslash'],
    ['C:/x.md', 'a drive prefix'],
    ['c:x.md', 'a drive prefix without a slash'],
  ])('calls %j unsafe (%s)', (path) => {
    expect(checkPath(path)).toMatchObject({ ok: false, code: 'path.unsafe' });
  });

  it.each([
    ['', 'empty'],
    ['./x.md', 'a . segment'],
    ['a/./b.md', 'a . segment inside'],
    ['a//b.md', 'an empty segment'],
    ['a/', 'a trailing slash'],
    ['a\u0000b', 'a NUL'],
    ['a\tb', 'a tab'],
    ['a\u0085b', 'a C1 control character'],
    ['cafe\u0301.md', 'NFD rather than NFC'],
    ['\uD800.md', 'a lone surrogate'],
  ])('calls %j noncanonical (%s)', (path) => {
    expect(checkPath(path)).toMatchObject({ ok: false, code: 'path.noncanonical' });
  });

  it('measures length in code points, with the measured value in the message', () => {
    expect(checkPath('a'.repeat(513))).toMatchObject({
      ok: false,
      code: 'limit.path_length',
      message: expect.stringContaining('513'),
    });
    expect(checkPath('😀'.repeat(513))).toMatchObject({
      ok: false,
      code: 'limit.path_length',
      message: expect.stringContaining('513'),
    });
    expect(checkPath('a'.repeat(20), { maxPathLength: 19 })).toMatchObject({ ok: false, code: 'limit.path_length' });
  });

  it('rejects what is not a string instead of throwing', () => {
    for (const value of [undefined, null, 42, {}, []]) expect(checkPath(value).ok).toBe(false);
  });
});

describe('foldPath', () => {
  it('makes paths equal that differ only in case or normalization', () => {
    expect(foldPath('Testing.MD')).toBe(foldPath('testing.md'));
    expect(foldPath('cafe\u0301.md')).toBe(foldPath('café.md'));
    expect(foldPath('STRASSE.md')).toBe(foldPath('straße.md'));
    expect(foldPath('a/b.md')).not.toBe(foldPath('a/c.md'));
  });
});
