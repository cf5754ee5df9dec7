// Cuts what an agent writes to one stream into the texts of output chunks: whole lines where
// possible, never more than MAX_CHUNK_BYTES, and text the hub accepts (OutputChunk: UTF-8 with
// undecodable bytes as U+FFFD, no NUL).
import { StringDecoder } from 'node:string_decoder';

/** The most UTF-8 bytes of one chunk; a longer line is cut into several. */
export const MAX_CHUNK_BYTES = 64 * 1024;

export class LineCutter {
  private readonly decoder = new StringDecoder('utf8');
  /** What came after the last line end. */
  private rest = '';
  /** When the first byte of `rest` came (Date.now()), or undefined when there is none. */
  restSince: number | undefined;

  /** The pieces that `data` completes: lines with their line end, and cuts of lines too long for one chunk. */
  push(data: Buffer, now: number): string[] {
    const text = this.rest + this.decoder.write(data).replaceAll('\0', '');
    const pieces: string[] = [];
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      pieces.push(...cut(text.slice(start, end + 1)));
      start = end + 1;
    }
    const rest = cut(text.slice(start));
    // The last cut may be short: it waits for the rest of its line.
    this.rest = rest.pop() ?? '';
    pieces.push(...rest);
    if (this.rest === '') this.restSince = undefined;
    else if (start > 0 || rest.length > 0 || this.restSince === undefined) this.restSince = now;
    return pieces;
  }

  /** The line so far, without waiting for its end; with `end`, also whatever the decoder still held. */
  takeRest(end = false): string[] {
    const text = this.rest + (end ? this.decoder.end().replaceAll('\0', '') : '');
    this.rest = '';
    this.restSince = undefined;
    return text === '' ? [] : cut(text);
  }
}

/** `text` in pieces of at most MAX_CHUNK_BYTES, never inside a character. */
function cut(text: string): string[] {
  const pieces: string[] = [];
  while (text.length > 0) {
    const length = prefixWithin(text, MAX_CHUNK_BYTES);
    pieces.push(text.slice(0, length));
    text = text.slice(length);
  }
  return pieces;
}

/** The length (in UTF-16 units) of the longest prefix of `text` of at most `maxBytes` UTF-8 bytes that ends between two characters. */
function prefixWithin(text: string, maxBytes: number): number {
  // No UTF-16 unit is more than 3 bytes in UTF-8.
  if (text.length * 3 <= maxBytes) return text.length;
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const unit = text.charCodeAt(i);
    const pair = unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length;
    const size = unit < 0x80 ? 1 : unit < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    i += pair ? 2 : 1;
  }
  return i;
}
