// The JSON Schemas of @hub/schemas, walked by a YAML path: what keys a mapping may have, what
// values a field may take, and the description of each. One index per schema, built lazily and
// memoized by path, so a keystroke walks a few nodes and never the whole schema.
import {
  configurationSchema,
  legacyHubSchema,
  legacyWorkflowSchema,
  triggerSchema,
  type JsonSchema,
} from '@hub/schemas';
import type { DocumentKind } from './types.js';

/** A step of a YAML path: a mapping's key, or ITEM for any entry of a sequence. */
export const ITEM: unique symbol = Symbol('item');
export type Segment = string | typeof ITEM;

type Schema = Readonly<Record<string, unknown>>;

/** Schema nodes found at one place: several when the schema offers alternatives (oneOf, anyOf, $ref with siblings). */
export interface Field {
  /** The nodes as written at that place, before their $ref are followed: their own description wins. */
  nodes: Schema[];
  /** The nodes with every $ref, oneOf, anyOf and allOf followed. */
  resolved: Schema[];
}

const DEPTH = 32;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class SchemaIndex {
  readonly #root: Schema;
  readonly #fields = new Map<string, Field>();

  constructor(root: JsonSchema) {
    this.#root = root;
  }

  /** The field at `path` (an empty field where the schema says nothing). */
  at(path: readonly Segment[]): Field {
    const key = path.map((segment) => (segment === ITEM ? '\u0000' : segment)).join('\u0001');
    let field = this.#fields.get(key);
    if (field === undefined) {
      field =
        path.length === 0
          ? this.#field([this.#root])
          : this.#field(this.#children(this.at(path.slice(0, -1)), path[path.length - 1] as Segment));
      this.#fields.set(key, field);
    }
    return field;
  }

  /** The keys a mapping at `path` may have, each with its field. */
  properties(path: readonly Segment[]): Map<string, Field> {
    const names = new Set<string>();
    for (const node of this.at(path).resolved)
      if (isSchema(node.properties)) for (const name of Object.keys(node.properties)) names.add(name);
    return new Map([...names].map((name) => [name, this.at([...path, name])]));
  }

  #field(nodes: Schema[]): Field {
    return { nodes, resolved: nodes.flatMap((node) => this.#resolve(node, 0)) };
  }

  #children(parent: Field, segment: Segment): Schema[] {
    const found: Schema[] = [];
    for (const node of parent.resolved) {
      if (segment === ITEM) {
        if (isSchema(node.items)) found.push(node.items);
        continue;
      }
      const property = isSchema(node.properties) ? node.properties[segment] : undefined;
      if (isSchema(property)) found.push(property);
      else if (isSchema(node.additionalProperties)) found.push(node.additionalProperties);
    }
    return found;
  }

  #resolve(node: Schema, depth: number): Schema[] {
    if (depth > DEPTH) return [];
    const out: Schema[] = [node];
    if (typeof node.$ref === 'string') {
      const target = this.#pointer(node.$ref);
      if (target !== undefined) out.push(...this.#resolve(target, depth + 1));
    }
    for (const keyword of ['oneOf', 'anyOf', 'allOf']) {
      const branches = node[keyword];
      if (Array.isArray(branches))
        for (const branch of branches) if (isSchema(branch)) out.push(...this.#resolve(branch, depth + 1));
    }
    return out;
  }

  /** A local reference (#/$defs/name); our schemas refer to nothing outside themselves. */
  #pointer(ref: string): Schema | undefined {
    if (!ref.startsWith('#/')) return undefined;
    let node: unknown = this.#root;
    for (const part of ref.slice(2).split('/')) {
      const name = part.replace(/~1/g, '/').replace(/~0/g, '~');
      node = isSchema(node) ? node[name] : undefined;
    }
    return isSchema(node) ? node : undefined;
  }
}

/** The description shown for a field: the one written at the place, else the one of what it refers to. */
export function describe(field: Field): string | undefined {
  for (const node of [...field.nodes, ...field.resolved])
    if (typeof node.description === 'string') return node.description;
  return undefined;
}

/** The values a field may take, when the schema lists them: enum, const, or true and false. */
export function values(field: Field): string[] {
  const found = new Set<string>();
  for (const node of field.resolved) {
    if (Array.isArray(node.enum)) for (const value of node.enum) found.add(String(value));
    if ('const' in node) found.add(String(node.const));
    if (node.type === 'boolean') ['true', 'false'].forEach((value) => found.add(value));
  }
  return [...found];
}

/** Whether the field is a duration (the schemas' $defs/duration). */
export function isDuration(field: Field): boolean {
  return field.nodes.some((node) => typeof node.$ref === 'string' && node.$ref.endsWith('/$defs/duration'));
}

/** A short type line: `string`, `object or null`, `duration`, one of `daemon`. */
export function typeLine(field: Field): string | undefined {
  if (isDuration(field)) return 'duration (`90m`, `1h30m`; units d, h, m, s)';
  const listed = values(field).filter((value) => value !== 'true' && value !== 'false');
  if (listed.length > 0) return `one of ${listed.map((value) => `\`${value}\``).join(', ')}`;
  const types = new Set<string>();
  for (const node of field.resolved) {
    if (typeof node.type === 'string') types.add(node.type);
    else if (Array.isArray(node.type)) for (const type of node.type) types.add(String(type));
  }
  if (types.size === 0) return undefined;
  return [...types].map((type) => `\`${type}\``).join(' or ');
}

const INDEXES: Partial<Record<DocumentKind, SchemaIndex>> = {};
const SCHEMAS: Partial<Record<DocumentKind, JsonSchema>> = {
  configuration: configurationSchema,
  trigger: triggerSchema,
  'legacy-hub': legacyHubSchema,
  'legacy-workflow': legacyWorkflowSchema,
};

/** The schema index of a kind of document; none for a partial (text, not YAML). */
export function schemaFor(kind: DocumentKind): SchemaIndex | undefined {
  const schema = SCHEMAS[kind];
  if (schema === undefined) return undefined;
  return (INDEXES[kind] ??= new SchemaIndex(schema));
}
