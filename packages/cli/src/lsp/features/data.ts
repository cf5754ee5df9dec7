// What the document (and, for a legacy workflow, its hub file) declares: environment names, agent
// names, a trigger's inputs. Read with the `yaml` parser after blanking the cursor's line with
// spaces (same length, so offsets hold): the half-typed line is what breaks a document, and the
// declarations completion needs are elsewhere. The last parse is kept: hover and completion ask
// about the same text, and a keystroke's completions come in a burst.
import { isSeq, parseDocument, type Document } from 'yaml';
import type { DocumentKind } from './types.js';

export interface Named {
  name: string;
  detail?: string;
  documentation?: string;
}

interface Parsed {
  doc: Document.Parsed | undefined;
  data: unknown;
}

let last: { text: string; parsed: Parsed } | undefined;

function parse(text: string): Parsed {
  if (last?.text === text) return last.parsed;
  let parsed: Parsed;
  try {
    const doc = parseDocument(text, { strict: false, uniqueKeys: false, prettyErrors: false });
    parsed = { doc, data: doc.toJS({ maxAliasCount: 100 }) };
  } catch {
    parsed = { doc: undefined, data: undefined };
  }
  last = { text, parsed };
  return parsed;
}

/** `text` with the characters of [from, to) replaced by spaces. */
function blank(text: string, from: number, to: number): string {
  return text.slice(0, from) + ' '.repeat(Math.max(0, to - from)) + text.slice(to);
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
}

/** The document's declarations, the cursor's line [lineFrom, lineTo) left out. */
export class Declarations {
  readonly #parsed: Parsed;

  constructor(
    source: string,
    lineFrom: number,
    lineTo: number,
    private readonly kind: DocumentKind,
    private readonly hubYaml: string | undefined,
  ) {
    this.#parsed = parse(blank(source, lineFrom, lineTo));
  }

  /** Environments a step may name: the configuration's list, or a legacy hub file's map. */
  environments(): Named[] {
    if (this.kind === 'configuration') {
      return list(record(this.#parsed.data)?.environments).flatMap((entry) => {
        const environment = record(entry);
        const name = text(environment?.name);
        return name === undefined ? [] : [{ name, detail: where(environment) }];
      });
    }
    if (this.kind === 'legacy-workflow' && this.hubYaml !== undefined) {
      const environments = record(record(parse(this.hubYaml).data)?.environments) ?? {};
      return Object.entries(environments).map(([name, value]) => ({ name, detail: where(record(value)) }));
    }
    return [];
  }

  /** Agents a legacy step may name: the hub file's `agents`. */
  agents(): Named[] {
    if (this.kind !== 'legacy-workflow' || this.hubYaml === undefined) return [];
    const agents = record(record(parse(this.hubYaml).data)?.agents) ?? {};
    return Object.entries(agents).map(([name, value]) => {
      const agent = record(value);
      const parts = ['provider', 'mode', 'model'].flatMap((field) => (text(agent?.[field]) === undefined ? [] : [`${field} ${text(agent?.[field])}`]));
      return { name, detail: parts.join(', ') || undefined };
    });
  }

  /** The inputs declared by the trigger around `offset` (a configuration's trigger entry, or the whole document). */
  inputs(offset: number): Named[] {
    const trigger = this.#trigger(offset);
    const inputs = record(record(record(trigger?.on)?.['manual.run'])?.inputs) ?? {};
    return Object.entries(inputs).map(([name, value]) => {
      const input = record(value);
      const fallback = text(input?.default);
      return { name, detail: fallback === undefined ? undefined : `default ${fallback}`, documentation: text(input?.description) };
    });
  }

  #trigger(offset: number): Record<string, unknown> | undefined {
    const data = record(this.#parsed.data);
    if (this.kind !== 'configuration') return data;
    const node = this.#parsed.doc?.get('triggers', true);
    if (!isSeq(node)) return undefined;
    // The entry the cursor is in: the last one that starts before it.
    let index = -1;
    node.items.forEach((item, i) => {
      const start = (item as { range?: [number, number, number] } | null)?.range?.[0];
      if (start !== undefined && start <= offset) index = i;
    });
    return record(list(data?.triggers)[index]);
  }
}

function where(environment: Record<string, unknown> | undefined): string | undefined {
  const daemon = text(environment?.daemon);
  const cwd = text(environment?.cwd);
  if (daemon === undefined && cwd === undefined) return undefined;
  return `${daemon ?? '?'}: ${cwd ?? '?'}`;
}
