// LineCutter: an agent's stream as the texts of output chunks.
import { describe, expect, it } from 'vitest';
import { LineCutter, MAX_CHUNK_BYTES } from '../src/lines.js';

/** Pushes each part in turn; what came out, and what is left as a partial line. */
function cutAll(parts: (string | Buffer)[]): { pieces: string[]; rest: string[] } {
  const cutter = new LineCutter();
  const pieces = parts.flatMap((part) => cutter.push(typeof part === 'string' ? Buffer.from(part) : part, 0));
  return { pieces, rest: cutter.takeRest(true) };
}

const euro = Buffer.from('€'); // three bytes

describe('LineCutter', () => {
  it.each([
    ['whole lines, each with its end', ['a\nb\r\nc\n'], ['a\n', 'b\r\n', 'c\n'], []],
    ['a line written in parts', ['ab', 'c', 'd\ne'], ['abcd\n'], ['e']],
    ['a partial line, left for later', ['no end'], [], ['no end']],
    ['an empty line', ['\n\n'], ['\n', '\n'], []],
    ['NUL characters removed', ['a\0b\n\0'], ['ab\n'], []],
    [
      'a character split across writes',
      [euro.subarray(0, 1), Buffer.concat([euro.subarray(1), Buffer.from('\n')])],
      ['€\n'],
      [],
    ],
    ['bytes that are not UTF-8, as U+FFFD', [Buffer.from([0x61, 0xff, 0x0a])], ['a\uFFFD\n'], []],
    ['a truncated character at the end, as U+FFFD', [euro.subarray(0, 2)], [], ['\uFFFD']],
  ])('%s', (_, parts, pieces, rest) => {
    expect(cutAll(parts)).toEqual({ pieces, rest });
  });

  it('cuts a line too long for one chunk into pieces of at most 64 KiB, never inside a character', () => {
    const line = `${'€'.repeat(30_000)}\n`;
    const { pieces, rest } = cutAll([line]);
    expect(pieces.join('')).toBe(line);
    expect(rest).toEqual([]);
    expect(pieces.length).toBe(2);
    for (const piece of pieces) expect(Buffer.byteLength(piece)).toBeLessThanOrEqual(MAX_CHUNK_BYTES);
    expect(Buffer.byteLength(pieces[0] as string)).toBe(MAX_CHUNK_BYTES - (MAX_CHUNK_BYTES % 3));
  });

  it('sends the full pieces of a long partial line at once and keeps the remainder waiting', () => {
    const cutter = new LineCutter();
    const pieces = cutter.push(Buffer.from('x'.repeat(MAX_CHUNK_BYTES + 10)), 5);
    expect(pieces.map((piece) => piece.length)).toEqual([MAX_CHUNK_BYTES]);
    expect(cutter.restSince).toBe(5);
    expect(cutter.takeRest()).toEqual(['x'.repeat(10)]);
  });

  it("keeps surrogate pairs whole: a piece never ends between a pair's halves", () => {
    const line = `a${'😀'.repeat(20_000)}`;
    const { pieces, rest } = cutAll([line]);
    for (const piece of [...pieces, ...rest])
      expect(piece).toMatch(/^[^\ud800-\udfff]*(?:[\ud800-\udbff][\udc00-\udfff][^\ud800-\udfff]*)*$/);
    expect([...pieces, ...rest].join('')).toBe(line);
  });

  it('knows since when a partial line waits: from its first byte, renewed when a line ends', () => {
    const cutter = new LineCutter();
    cutter.push(Buffer.from('ab'), 10);
    cutter.push(Buffer.from('c'), 20);
    expect(cutter.restSince).toBe(10);
    cutter.push(Buffer.from('\nd'), 30);
    expect(cutter.restSince).toBe(30);
    cutter.push(Buffer.from('\n'), 40);
    expect(cutter.restSince).toBeUndefined();
  });
});
