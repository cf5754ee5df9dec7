import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
type OpenApiDocument = Record<string, unknown>;

const addFormats = addFormatsModule.default;
const ID = 'urn:hub:openapi';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/**
 * Compiles every schema of the OpenAPI document: each of components/schemas, and each request
 * and response body of each operation, with its references resolved. Response schemas are
 * otherwise compiled on first use, where a mistake would be a 500. The document is a file of the
 * release (@hub/schemas/openapi.json), so this runs once on it, in the suite
 * (test/openapi-check.test.ts), not at each start: there it took 0.6 s of CPU, a quarter of a
 * start's (docs/decisions.md, "Starting a hub").
 */
export function checkDocument(document: OpenApiDocument): void {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(document, ID);
  const pointers: string[] = [];
  const schemas = (document.components as { schemas?: Record<string, unknown> } | undefined)?.schemas ?? {};
  for (const name of Object.keys(schemas)) pointers.push(`/components/schemas/${escape(name)}`);
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, Operation>>)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      const at = `/paths/${escape(path)}/${method}`;
      for (const media of Object.keys(operation.requestBody?.content ?? {}))
        pointers.push(`${at}/requestBody/content/${escape(media)}/schema`);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        for (const media of Object.keys(response.content ?? {}))
          pointers.push(`${at}/responses/${status}/content/${escape(media)}/schema`);
      }
    }
  }
  const failures: string[] = [];
  for (const pointer of pointers) {
    try {
      ajv.compile({ $ref: `${ID}#${encodeURI(pointer)}` });
    } catch (error) {
      failures.push(`${pointer}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (failures.length > 0)
    throw new Error(`The OpenAPI document has schemas that do not compile:\n${failures.join('\n')}`);
}

interface Operation {
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
}

function escape(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
