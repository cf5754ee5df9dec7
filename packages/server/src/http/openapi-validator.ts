import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Hub } from '../hub.js';
import { openApiDocument } from '../openapi/document.js';
import { HttpProblem } from '../problems/problem.js';

/**
 * express-openapi-validator over the hub's own OpenAPI document, checking every response when
 * the options ask for it (the tests do; a mismatch is a 500). Requests are checked by the routes
 * themselves (http/body.ts), whose issues point more precisely than a validator's oneOf can;
 * test/openapi.test.ts holds both to the document.
 */
export function openApiValidator(hub: Hub): RequestHandler[] {
  if (hub.options.validateResponses !== true) return [];
  return OpenApiValidator.middleware({
    apiSpec: openApiDocument(hub.options.publicUrl ?? hub.options.problemBase, { maxBodyBytes: hub.options.maxBodyBytes }) as never,
    validateApiSpec: true,
    validateRequests: false,
    validateResponses: true,
    validateSecurity: false,
    ignoreUndocumented: true,
  }) as unknown as RequestHandler[];
}

/** A response the document does not describe, as a 500 problem naming what differs. */
export function fromValidatorError(error: unknown): HttpProblem | undefined {
  const failure = error as { status?: number; errors?: { path: string; message: string }[] } | null;
  if (failure === null || typeof failure !== 'object' || !Array.isArray(failure.errors) || failure.status !== 500) return undefined;
  const differences = failure.errors.map((item) => `${item.path} ${item.message}`).join('; ');
  return new HttpProblem('internal_error', `The response does not match the OpenAPI document: ${differences}`);
}
