import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Hub } from '../hub.js';
import { checkDocument } from '../openapi/check.js';
import { hubDocument } from '../openapi/document.js';
import { HttpProblem } from '../problems/problem.js';

/**
 * express-openapi-validator over the hub's own OpenAPI document. It checks every request that the
 * route's own reader (`Route.read`) has let through, as a backstop: the reader's issues come
 * first because they say which field of the shape that was sent is wrong, where a validator's
 * `oneOf` of the two configuration shapes says "files is required" of a shape-A body. It checks
 * every response too when the options ask for it (the tests do: a mismatch is a 500).
 */
export function openApiValidator(hub: Hub): RequestHandler[] {
  const document = hubDocument(hub.options);
  // The validator compiles schemas on first use; a mistake must stop the hub now, not be a 500 later.
  checkDocument(document);
  return OpenApiValidator.middleware({
    apiSpec: document as never,
    validateApiSpec: true,
    // Unknown query parameters are ignored, as by most HTTP APIs; none of the hub's take any.
    validateRequests: { allowUnknownQueryParameters: true },
    validateResponses: hub.options.validateResponses === true,
    validateSecurity: false,
    ignoreUndocumented: true,
  }) as unknown as RequestHandler[];
}

/**
 * The validator's verdict as a problem: a request the document does not allow is a 400 with an
 * issue per difference (`request.schema`); a response it does not describe is a 500 naming what
 * differs.
 */
export function fromValidatorError(error: unknown): HttpProblem | undefined {
  const failure = error as { status?: number; errors?: { path: string; message: string }[] } | null;
  if (failure === null || typeof failure !== 'object' || !Array.isArray(failure.errors)) return undefined;
  if (failure.status === 500) {
    const differences = failure.errors.map((item) => `${item.path} ${item.message}`).join('; ');
    return new HttpProblem('internal_error', `The response does not match the OpenAPI document: ${differences}`);
  }
  if (failure.status === 415) return new HttpProblem('unsupported_media_type', 'Send the body as JSON, with Content-Type: application/json.');
  if (failure.status !== 400) return undefined;
  const issues = failure.errors.map((item) => {
    const [, where = '', ...rest] = item.path.split('/');
    const pointer = where === 'body' ? (rest.length === 0 ? '' : `/${rest.join('/')}`) : item.path;
    return { pointer, code: 'request.schema', message: `${where === 'body' ? 'The body' : item.path} ${item.message} (OpenAPI document).` };
  });
  return new HttpProblem('invalid_request', 'The request does not match the OpenAPI document; see issues.', { issues });
}
