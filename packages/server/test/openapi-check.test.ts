// Every schema of the committed OpenAPI document compiles (openapi/check.ts): checked here, once,
// rather than at each start of the hub (docs/decisions.md, "Starting a hub").
import { describe, expect, it } from 'vitest';
import { documentText } from '../src/openapi/contract.js';
import { checkDocument } from '../src/openapi/check.js';

describe('checkDocument', () => {
  it('finds nothing in the committed document', () => {
    expect(() => checkDocument(JSON.parse(documentText))).not.toThrow();
  });

  it('names each schema that does not compile, a component or an operation’s body', () => {
    const document = JSON.parse(documentText);
    const name = Object.keys(document.components.schemas)[0] as string;
    document.components.schemas[name] = { type: 'not-a-type' };
    document.paths['/api/v1/projects'].get.responses['200'].content['application/json'].schema = {
      $ref: '#/components/schemas/NoSuchSchema',
    };
    let message = '';
    try {
      checkDocument(document);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^The OpenAPI document has schemas that do not compile:\n/);
    expect(message).toContain(`/components/schemas/${name}: `);
    expect(message).toContain('/paths/~1api~1v1~1projects/get/responses/200/content/application~1json/schema: ');
  });
});
