/** A text with positions derived lazily from offsets (UTF-16 indices into `text`). */
export class SourceText {
  readonly text: string;
  private lineStarts: number[] | undefined;

  constructor(text: string) {
    this.text = text;
  }

  /** 1-based line and code-point column of an offset; offsets past the end clamp to the end. */
  position(offset: number): { line: number; column: number } {
    const starts = (this.lineStarts ??= computeLineStarts(this.text));
    const at = Math.max(0, Math.min(offset, this.text.length));
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] as number) <= at) low = mid;
      else high = mid - 1;
    }
    // A leading byte order mark is invisible: columns of the first line count from after it.
    const start = low === 0 && this.text.charCodeAt(0) === 0xfeff && at > 0 ? 1 : (starts[low] as number);
    return { line: low + 1, column: countCodePoints(this.text, start, at) + 1 };
  }
}

/** Offsets where lines start; a line break is \n, \r\n or a lone \r. */
function computeLineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) starts.push(i + 1);
    else if (c === 13 && text.charCodeAt(i + 1) !== 10) starts.push(i + 1);
  }
  return starts;
}

export function countCodePoints(text: string, start = 0, end = text.length): number {
  let count = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** Characters as DECISIONS.md counts them: Unicode code points. */
export function codePointLength(text: string): number {
  return countCodePoints(text);
}

/** UTF-8 length; a lone surrogate counts as the 3 bytes of its replacement character. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** Offset of the first lone surrogate, or -1 when the text is well-formed. */
export function findLoneSurrogate(text: string): number {
  if (text.isWellFormed()) return -1;
  return text.search(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
