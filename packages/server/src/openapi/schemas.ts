import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Platform } from '../http/platform.js';
import { handle, type Handlers } from '../http/operation.js';
import { HttpProblem } from '../problems/problem.js';

/** The YAML documents' schemas that editors may load from the hub (@hub/schemas/schemas/<file>). */
const SERVED_SCHEMAS = [
  'configuration.schema.json',
  'trigger.schema.json',
  'legacy-hub.schema.json',
  'legacy-workflow.schema.json',
] as const;

// Schemas change only with the hub itself; a few minutes of caching, then an ETag revalidation.
const CACHE_CONTROL = 'public, max-age=300';

interface Served {
  body: string;
  etag: string;
}

/**
 * A published schema with its `$id` made the URL it is served at, `{origin}/schemas/{file}`; the
 * rest is the file's bytes (the generator writes `JSON.stringify(schema, null, 2)`, which this
 * repeats). The files keep their URN `$id`s: the compiler's validators are generated from them
 * and do not depend on where a hub runs. Every `$ref` in them is internal (`#/$defs/…`), so the
 * new `$id` resolves nothing differently.
 */
function servedSchema(text: string, origin: string, file: string): string {
  const schema = JSON.parse(text) as Record<string, unknown>;
  schema.$id = `${origin}/schemas/${file}`;
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/** GET /schemas/{file}: each body built once, on its first request, for the hub's one public URL. */
export function schemaHandlers(hub: Platform): Handlers {
  const origin = hub.options.publicUrl ?? hub.options.problemBase;
  const resolve = createRequire(import.meta.url).resolve;
  // Built on a schema's first request, then kept: most hubs never serve one.
  const served = new Map<string, Served>();
  const schemaOf = (file: string): Served | undefined => {
    if (!(SERVED_SCHEMAS as readonly string[]).includes(file)) return undefined;
    let schema = served.get(file);
    if (schema === undefined) {
      const body = servedSchema(readFileSync(resolve(`@hub/schemas/schemas/${file}`), 'utf8'), origin, file);
      served.set(
        file,
        (schema = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` }),
      );
    }
    return schema;
  };
  return {
    getYamlSchema: handle(({ res, params }) => {
      const schema = schemaOf(params.file);
      if (schema === undefined)
        throw new HttpProblem(
          'not_found',
          `The hub serves no schema of that name; it serves ${SERVED_SCHEMAS.join(', ')}.`,
        );
      res.setHeader('ETag', schema.etag);
      res.setHeader('Cache-Control', CACHE_CONTROL);
      // Public and credential-free: an editor running in a browser (vscode.dev) may load it from any origin.
      res.setHeader('Access-Control-Allow-Origin', '*');
      // Express answers 304 itself when If-None-Match names the ETag (req.fresh).
      res.type('application/schema+json').send(schema.body);
    }),
  };
}
