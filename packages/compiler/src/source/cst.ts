import { CST } from 'yaml';
import type { Limits } from '../limits/limits.js';
import type { SourceText } from './text.js';
import {
  checkEnd,
  containsNewline,
  emptyScalarPosition,
  isBlock,
  resolveProps,
  readScalar,
  type Props,
  type Scalar,
} from './cst-tokens.js';
import { DataWalk, GIVE_UP, giveUp, type CollectionSpans, type FastDocument } from './walk.js';

export type { FastDocument, Locator, NodeSpan } from './walk.js';
export { unstorable } from './walk.js';

/**
 * The fast reading of a YAML document: plain data and positions straight from yaml's concrete
 * syntax tree, without composing a Document. It covers what configurations are written in
 * (block and flow collections, plain, quoted and block scalars, comments, one document) and
 * repeats yaml's composer checks for that part of YAML. Anything else (an alias, an anchor, a
 * tag, an explicit "?" key, a key that is not a scalar, a limit reached, anything the composer
 * would call an error) makes it give up, and the caller composes the document as before, so
 * that every message and position stays yaml's own. See docs/decisions.md (compiler, fast path).
 */

type Token = CST.Token;
type Item = CST.CollectionItem;
type SourceToken = CST.SourceToken;

/** Reads a document's tokens, or returns undefined when the composer must do it. */
export function readFast(tokens: Token[], source: SourceText, limits: Limits): FastDocument | undefined {
  let doc: CST.Document | undefined;
  for (const token of tokens) {
    if (token.type === 'space' || token.type === 'newline' || token.type === 'comment') continue;
    if (token.type !== 'document' || doc !== undefined) return undefined;
    doc = token;
  }
  if (doc === undefined) return undefined;
  try {
    return new Reader(source, limits).document(doc);
  } catch (error) {
    if (error === GIVE_UP) return undefined;
    throw error;
  }
}

class Reader extends DataWalk {
  /** Set by `node`: the node's range[2], where the composer continues. */
  private end = 0;

  constructor(
    source: SourceText,
    private readonly limits: Limits,
  ) {
    super(source);
  }

  document(doc: CST.Document): FastDocument {
    const props = resolveProps(doc.start, undefined, 'doc-start', doc.value ?? doc.end?.[0], doc.offset, 0, true);
    const value = doc.value;
    if (props.found !== null && value !== undefined && isBlock(value) && !props.hasNewline) giveUp();
    // A block scalar at the root is composed with the root's own indentation rule: leave it to yaml.
    if (value?.type === 'block-scalar') giveUp();
    let result: unknown;
    let start: number;
    if (value === undefined) {
      start = emptyScalarPosition(props.end, doc.start);
      this.end = start;
      this.kid = undefined;
      this.valueEnd = start;
      result = null;
    } else {
      start = value.offset;
      result = this.node(value, 1);
    }
    checkEnd(doc.end, false);
    return this.result(result, start);
  }

  private emptyScalar(offset: number, before: SourceToken[] | undefined, props: Props): unknown {
    const start = emptyScalarPosition(offset, before);
    this.start = start;
    this.kid = undefined;
    this.valueEnd = start;
    this.end = props.hasComment ? props.end : start;
    return null;
  }

  /** Composes and walks a node in one go; sets `end`, `kid` and `valueEnd`. */
  private node(token: Token, depth: number): unknown {
    switch (token.type) {
      case 'scalar':
      case 'single-quoted-scalar':
      case 'double-quoted-scalar':
      case 'block-scalar': {
        const scalar = readScalar(token);
        this.start = scalar.start;
        this.end = scalar.end;
        this.kid = undefined;
        this.valueEnd = scalar.valueEnd;
        if (typeof scalar.value === 'string') this.checkStorable(scalar.value, 'value', scalar.start);
        return scalar.value;
      }
      case 'block-map':
      case 'block-seq':
      case 'flow-collection': {
        if (depth > this.limits.maxDepth) giveUp();
        const value =
          token.type === 'block-map'
            ? this.blockMap(token, depth)
            : token.type === 'block-seq'
              ? this.blockSeq(token, depth)
              : this.flowCollection(token, depth);
        // Set after the items, which set it for themselves.
        this.start = token.offset;
        return value;
      }
      default:
        giveUp();
    }
  }

  private blockMap(map: CST.BlockMap, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const spans: CollectionSpans = { map: true, keys: [], at: [], kids: [] };
    const seen = new Map<string, number>();
    let offset = map.offset;
    let commentEnd: number | null = null;
    for (const item of map.items) {
      const { start, sep, value } = item;
      const key = item.key ?? undefined;
      const keyProps = resolveProps(start, undefined, 'explicit-key-ind', key ?? sep?.[0], offset, map.indent, true);
      if (keyProps.found !== null) giveUp();
      if (key !== undefined && (key.type === 'block-seq' || ('indent' in key && key.indent !== map.indent))) giveUp();
      if (sep === undefined) {
        commentEnd = keyProps.end;
        continue;
      }
      if (key === undefined || containsNewline(key)) giveUp();
      const keyScalar = this.keyScalar(key);
      const valueProps = resolveProps(sep, undefined, 'map-value-ind', value, keyScalar.end, map.indent, false);
      offset = valueProps.end;
      if (valueProps.found === null) giveUp();
      if (value?.type === 'block-map' && !valueProps.hasNewline) giveUp();
      if (keyProps.end < valueProps.found.offset - 1024) giveUp();
      this.entry(out, spans, seen, keyScalar, () =>
        value === undefined ? this.emptyScalar(offset, sep, valueProps) : this.node(value, depth + 1),
      );
      offset = this.end;
    }
    if (commentEnd !== null && commentEnd !== 0 && commentEnd < offset) giveUp();
    this.end = commentEnd ?? offset;
    this.kid = spans;
    this.valueEnd = -1;
    return out;
  }

  private blockSeq(seq: CST.BlockSequence, depth: number): unknown[] {
    const out: unknown[] = [];
    const spans: CollectionSpans = { map: false, keys: undefined, at: [], kids: [] };
    let offset = seq.offset;
    let commentEnd: number | null = null;
    for (const { start, value } of seq.items) {
      const props = resolveProps(start, undefined, 'seq-item-ind', value, offset, seq.indent, true);
      if (props.found === null) {
        if (value !== undefined) giveUp();
        commentEnd = props.end;
        continue;
      }
      this.path.push(out.length);
      out.push(value === undefined ? this.emptyScalar(props.end, start, props) : this.node(value, depth + 1));
      this.path.pop();
      spans.at.push(this.start, this.valueEnd);
      spans.kids.push(this.kid);
      offset = this.end;
    }
    this.end = commentEnd ?? offset;
    this.kid = spans;
    this.valueEnd = -1;
    return out;
  }

  private flowCollection(fc: CST.FlowCollection, depth: number): unknown {
    const isMap = fc.start.source === '{';
    const name = isMap ? 'flow map' : 'flow sequence';
    const list: unknown[] = [];
    const out: Record<string, unknown> = {};
    const spans: CollectionSpans = { map: isMap, keys: isMap ? [] : undefined, at: [], kids: [] };
    const seen = new Map<string, number>();
    let offset = fc.offset + fc.start.source.length;
    for (let i = 0; i < fc.items.length; ++i) {
      const { start, sep, value } = fc.items[i] as Item;
      const key = fc.items[i]?.key ?? undefined;
      const props = resolveProps(start, name, 'explicit-key-ind', key ?? sep?.[0], offset, fc.indent, false);
      if (props.found !== null) giveUp();
      if (sep === undefined && value === undefined) {
        if (key !== undefined) giveUp();
        if (i === 0 ? props.comma !== null : i < fc.items.length - 1) giveUp();
        offset = props.end;
        continue;
      }
      if (i === 0 ? props.comma !== null : props.comma === null) giveUp();
      if (!isMap) {
        // A "key: value" pair in a flow sequence makes a mapping of its own: the composer's part.
        if (sep !== undefined || key !== undefined || value === undefined || isBlock(value)) giveUp();
        this.path.push(list.length);
        list.push(this.node(value, depth + 1));
        this.path.pop();
        spans.at.push(this.start, this.valueEnd);
        spans.kids.push(this.kid);
        offset = this.end;
        continue;
      }
      if (key === undefined || isBlock(key) || key.type === 'block-scalar') giveUp();
      const keyScalar = this.keyScalar(key);
      const valueProps = resolveProps(sep ?? [], name, 'map-value-ind', value, keyScalar.end, fc.indent, false);
      if (valueProps.found === null && value !== undefined) giveUp();
      if (isBlock(value)) giveUp();
      if (value === undefined && valueProps.found === null) {
        // "{ a }": the pair has no value node; its position is the key's.
        this.entry(out, spans, seen, keyScalar, () => {
          this.start = keyScalar.start;
          this.end = valueProps.end;
          this.kid = undefined;
          this.valueEnd = keyScalar.valueEnd;
          return null;
        });
        offset = valueProps.end;
        continue;
      }
      this.entry(out, spans, seen, keyScalar, () =>
        value === undefined ? this.emptyScalar(valueProps.end, sep, valueProps) : this.node(value, depth + 1),
      );
      offset = this.end;
    }
    const [close, ...rest] = fc.end;
    if (close?.source !== (isMap ? '}' : ']')) giveUp();
    const closeEnd = close.offset + close.source.length;
    this.end = closeEnd + (rest.length > 0 ? checkEnd(rest as SourceToken[], true) : 0);
    this.kid = spans;
    this.valueEnd = -1;
    return isMap ? out : list;
  }

  /** A mapping key: a one-line flow scalar, as the composer would compose it at a key. */
  private keyScalar(key: Token): Scalar {
    if (key.type !== 'scalar' && key.type !== 'single-quoted-scalar' && key.type !== 'double-quoted-scalar') giveUp();
    return readScalar(key);
  }
}
