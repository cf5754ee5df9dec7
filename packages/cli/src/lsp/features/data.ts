// What the document (and, for a legacy workflow, its hub file) declares: environment names, agent
// names, a trigger's inputs. Only the block that declares them is parsed with `yaml` (the
// configuration's `environments`, the trigger entry around the cursor, a document's `on`): a
// 1,000-line file takes tens of milliseconds to parse whole, too slow for a keystroke, and the
// half-typed cursor line, left out, is what would break the parse.
import { parse as parseYaml } from 'yaml';
import { blockAt, lineNodes, topLevelKey, type Located } from './lines.js';
import type { DocumentKind } from './types.js';

export interface Named {
  name: string;
  detail?: string;
  documentation?: string;
}

/** The last few texts parsed: a keystroke's completions and hovers ask about the same blocks. */
const parsed = new Map<string, unknown>();
const KEEP = 8;

function parse(text: string): unknown {
  if (parsed.has(text)) return parsed.get(text);
  let data: unknown;
  try {
    data = parseYaml(text, { strict: false, uniqueKeys: false, prettyErrors: false, maxAliasCount: 100 });
  } catch {
    data = undefined;
  }
  if (parsed.size >= KEEP) parsed.delete(parsed.keys().next().value as string);
  parsed.set(text, data);
  return data;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : undefined;
}

/** The document's declarations, line `row` (the cursor's) left out. */
export class Declarations {
  constructor(
    private readonly lines: readonly string[],
    private readonly row: number,
    private readonly kind: DocumentKind,
    private readonly hubYaml: string | undefined,
  ) {}

  /** Environments a step may name: the configuration's list, or a legacy hub file's map. */
  environments(): Named[] {
    if (this.kind === 'configuration') {
      const list = this.#topLevel('environments');
      return (Array.isArray(list) ? list : []).flatMap((entry) => {
        const environment = record(entry);
        const name = text(environment?.name);
        return name === undefined ? [] : [{ name, detail: where(environment) }];
      });
    }
    if (this.kind === 'legacy-workflow' && this.hubYaml !== undefined) {
      const environments = record(record(parse(this.hubYaml))?.environments) ?? {};
      return Object.entries(environments).map(([name, value]) => ({ name, detail: where(record(value)) }));
    }
    return [];
  }

  /** Agents a legacy step may name: the hub file's `agents`. */
  agents(): Named[] {
    if (this.kind !== 'legacy-workflow' || this.hubYaml === undefined) return [];
    const agents = record(record(parse(this.hubYaml))?.agents) ?? {};
    return Object.entries(agents).map(([name, value]) => {
      const agent = record(value);
      const parts = ['provider', 'mode', 'model'].flatMap((field) =>
        text(agent?.[field]) === undefined ? [] : [`${field} ${text(agent?.[field])}`],
      );
      return { name, detail: parts.join(', ') || undefined };
    });
  }

  /**
   * The inputs declared by the trigger around the cursor, whose enclosing nodes are `chain`: under
   * manual.run, or under github.mention when manual.run declares none (the compiler's inputsField).
   */
  inputs(chain: readonly Located[]): Named[] {
    const on = record(this.#on(chain));
    const inputs = record(record(on?.['manual.run'])?.inputs) ?? record(record(on?.['github.mention'])?.inputs) ?? {};
    return Object.entries(inputs).map(([name, value]) => {
      const input = record(value);
      const fallback = text(input?.default);
      return {
        name,
        detail: fallback === undefined ? undefined : `default ${fallback}`,
        documentation: text(input?.description),
      };
    });
  }

  /** The kinds of the trigger around the cursor (the keys of its `on`); undefined when it has no `on` to read. */
  kinds(chain: readonly Located[]): string[] | undefined {
    const on = record(this.#on(chain));
    return on === undefined ? undefined : Object.keys(on);
  }

  #on(chain: readonly Located[]): unknown {
    return this.kind === 'configuration' ? this.#triggerOn(chain) : this.#topLevel('on');
  }

  #topLevel(key: string): unknown {
    const row = topLevelKey(this.lines, key);
    return row < 0 || row === this.row ? undefined : record(parse(blockAt(this.lines, row, 0, this.row)))?.[key];
  }

  /** A configuration trigger's `on`: the entry of `triggers` the cursor is in, its `on:` line found among its own keys. */
  #triggerOn(chain: readonly Located[]): unknown {
    const at = chain.findIndex((node) => node.kind === 'key' && node.col === 0 && node.key === 'triggers');
    const entry = chain[at + 1];
    if (at < 0 || entry?.kind !== 'item') return undefined;
    const block = blockAt(this.lines, entry.row, entry.col, this.row).split('\n');
    // The entry's keys sit at the column after its `- `; `on:` is one of them.
    const first = lineNodes(block[0] as string).find((node) => node.col > entry.col);
    if (first === undefined) return undefined;
    const row = block.findIndex((line, i) => {
      const nodes = lineNodes(line);
      const node = i === 0 ? nodes.find((candidate) => candidate.col === first.col) : nodes[0];
      return node?.kind === 'key' && node.key === 'on' && node.col === first.col;
    });
    if (row < 0) return undefined;
    const [head = '', ...rest] = blockAt(block, row, first.col).split('\n');
    return record(parse([' '.repeat(first.col) + head.slice(first.col), ...rest].join('\n')))?.on;
  }
}

function where(environment: Record<string, unknown> | undefined): string | undefined {
  const daemon = text(environment?.daemon);
  const cwd = text(environment?.cwd);
  if (daemon === undefined && cwd === undefined) return undefined;
  return `${daemon ?? '?'}: ${cwd ?? '?'}`;
}
