// GitHub's description is OpenAPI 3.0: its schemas say `nullable: true` where JSON Schema says
// `type: [..., 'null']`, and they point at `#/components/schemas/…`. This turns one of them into a
// standalone JSON Schema (2020-12) that carries the components it reaches under `$defs`.

export type Json = Record<string, unknown>;

const COMPONENT = '#/components/schemas/';

/** A standalone JSON Schema for `schema`, an OpenAPI 3.0 schema of `document`. */
export function jsonSchemaOf(schema: unknown, document: Json): Json {
  const components = ((document.components as Json | undefined)?.schemas ?? {}) as Json;
  const wanted = new Set<string>();
  const root = convert(schema, wanted) as Json;
  const defs: Json = {};
  const done = new Set<string>();
  for (let pending = [...wanted]; pending.length > 0; pending = [...wanted].filter((name) => !done.has(name))) {
    for (const name of pending) {
      done.add(name);
      defs[name] = convert(components[name] ?? {}, wanted);
    }
  }
  return Object.keys(defs).length > 0 ? { ...root, $defs: defs } : root;
}

function convert(node: unknown, wanted: Set<string>): unknown {
  if (Array.isArray(node)) return node.map((item) => convert(item, wanted));
  if (node === null || typeof node !== 'object') return node;
  const source = node as Json;
  if (typeof source.$ref === 'string' && source.$ref.startsWith(COMPONENT)) {
    const name = source.$ref.slice(COMPONENT.length);
    wanted.add(name);
    return { $ref: `#/$defs/${name}` };
  }
  const copy: Json = {};
  for (const [key, value] of Object.entries(source)) {
    // `example`, `examples` and `x-…` describe; `properties` holds names, not schemas to convert.
    if (key === 'example' || key === 'nullable' || key.startsWith('x-')) continue;
    copy[key] = key === 'properties' ? convertEach(value as Json, wanted) : convert(value, wanted);
  }
  return source.nullable === true ? nullable(copy) : copy;
}

function convertEach(properties: Json, wanted: Set<string>): Json {
  return Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, convert(schema, wanted)]));
}

function nullable(schema: Json): Json {
  if (typeof schema.type === 'string') {
    const enumerated = Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {};
    return { ...schema, type: [schema.type, 'null'], ...enumerated };
  }
  return { anyOf: [schema, { type: 'null' }] };
}
