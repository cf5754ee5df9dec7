import type { Express, RequestHandler } from 'express';
import { requireAdmin } from '../auth/admin.js';
import { requireScope, type Scope } from '../auth/api-key.js';
import { requireDaemon } from '../auth/daemon-signature.js';
import type { Hub } from '../hub.js';
import { operationsOf, type Node, type OperationSpec } from '../openapi/contract.js';
import type { ContractValidator } from '../openapi/validator.js';
import { HttpProblem, toProblem } from '../problems/problem.js';
import { contextOf } from './context.js';
import { formBody, jsonBody } from './middleware.js';
import type { Handler, Handlers, OperationId } from './operation.js';

/** The OAuth forms hold a few short parameters. */
const FORM_LIMIT_BYTES = 16 * 1024;

/**
 * Mounts every operation of the document on its handler, by operationId: an operation without a
 * handler, or a handler without an operation, stops the hub here. Each request goes through its
 * operation's authentication (from `security`), its JSON body, the document's validator, then the
 * handler. Returns the operations, for `mountFallback`.
 */
export function mountOperations(app: Express, hub: Hub, document: Node, validator: ContractValidator, handlers: Handlers): OperationSpec[] {
  const operations = operationsOf(document);
  const documented = new Set(operations.map((operation) => operation.operationId));
  const stray = Object.keys(handlers).filter((id) => !documented.has(id));
  if (stray.length > 0) throw new Error(`handlers for operations the OpenAPI document does not have: ${stray.join(', ')}`);
  const missing = operations.filter((operation) => handlers[operation.operationId as OperationId] === undefined).map((operation) => operation.operationId);
  if (missing.length > 0) throw new Error(`operations of the OpenAPI document without a handler: ${missing.join(', ')}`);
  for (const operation of operations) {
    const handler = handlers[operation.operationId as OperationId] as Handler<OperationId>;
    const chain = [...(hub.options.validateResponses === true ? [checkResponses(hub, validator, operation)] : []), ...steps(hub, validator, operation, handler)];
    app[operation.method === 'GET' ? 'get' : 'post'](operation.expressPath, ...chain);
  }
  return operations;
}

function steps(hub: Hub, validator: ContractValidator, operation: OperationSpec, handler: Handler<OperationId>): RequestHandler[] {
  const { security } = operation;
  const auth: RequestHandler[] =
    security.kind === 'bearer'
      ? [requireScope(hub.authSql, security.scope as Scope | undefined, handler.prefetch)]
      : security.kind === 'admin'
        ? [requireAdmin(hub.options.adminToken)]
        : security.kind === 'daemon'
          ? [requireDaemon(hub.sql, hub.options.maxBodyBytes)]
          : [];
  const takesInput = operation.body !== undefined || operation.parameters.length > 0;
  const request = takesInput ? validator.request(operation) : undefined;
  const validate: RequestHandler = (req, _res, next) => {
    if (request !== undefined) contextOf(req).input = request.check({ body: req.body, params: req.params as Record<string, string>, query: req.query as Record<string, unknown> });
    next();
  };
  let checks: RequestHandler[];
  // The OAuth endpoints check their own form (their errors are OAuth errors, not problems).
  if (operation.form === true) checks = [...auth, formBody(FORM_LIMIT_BYTES)];
  // A signed daemon request's body is read by the signature check, which covers its bytes.
  else if (operation.body === undefined || security.kind === 'daemon') checks = [...auth, validate];
  // Parsed and validated before the key check, for its prefetch; refusals answered after it.
  else if (handler.bodyFirst !== undefined) checks = [deferErrors(jsonBody(handler.bodyFirst)), deferErrors(validate), ...auth, raiseDeferred];
  else checks = [...auth, jsonBody(hub.options.maxBodyBytes), validate];
  const run: RequestHandler = async (req, res) => {
    const input = contextOf(req).input ?? { body: undefined, params: {}, query: {} };
    await handler.handle({ req, res, ...(input as object) } as never);
  };
  return [...checks, run];
}

/**
 * Runs `check` unless an earlier one was refused, keeping its refusal in the request context for
 * `raiseDeferred` to answer; a refused body is no body to the steps in between.
 */
function deferErrors(check: RequestHandler): RequestHandler {
  return (req, res, next) => {
    if (contextOf(req).bodyError !== undefined) {
      next();
      return;
    }
    const done = (error?: unknown) => {
      if (error !== undefined) {
        contextOf(req).bodyError = error;
        req.body = undefined;
      }
      next();
    };
    try {
      void check(req, res, done);
    } catch (error) {
      done(error);
    }
  };
}

/** After the key check has passed: a refused body's problem is the answer (401 and 403 came first). */
const raiseDeferred: RequestHandler = (req, _res, next) => next(contextOf(req).bodyError);

/**
 * For tests (HubOptions.validateResponses): every answer is checked against the document before
 * it is sent; one the document does not describe becomes a 500 naming the difference.
 */
function checkResponses(hub: Hub, validator: ContractValidator, operation: OperationSpec): RequestHandler {
  return (req, res, next) => {
    const send = res.send.bind(res);
    let checked = false;
    res.send = (body?: unknown) => {
      if (checked) return send(body);
      checked = true;
      const type = res.get('content-type')?.split(';')[0]?.trim();
      let parsed: unknown = body;
      if ((typeof body === 'string' || Buffer.isBuffer(body)) && type !== undefined && /json$/.test(type)) {
        try {
          parsed = JSON.parse(body.toString());
        } catch {
          parsed = Symbol('not JSON');
        }
      }
      const errors = validator.checkResponse(operation, res.statusCode, type, parsed);
      if (errors.length === 0) return send(body);
      const problem = new HttpProblem('internal_error', `The response does not match the OpenAPI document: ${errors.join('; ')}`);
      hub.log.error('response does not match the document', { operationId: operation.operationId, errors });
      res.status(500).type('application/problem+json');
      return send(JSON.stringify(toProblem(problem, { problemBase: hub.options.problemBase, requestId: contextOf(req).requestId })));
    };
    next();
  };
}

/** What no route answered: a 405 (with Allow) on a documented path, else a 404, both as problems. */
export function mountFallback(app: Express, operations: OperationSpec[]): void {
  const patterns = operations.map((operation) => ({
    method: operation.method,
    regex: new RegExp(`^${operation.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[A-Za-z]+\}/g, '[^/]+')}/?$`),
  }));
  app.use((req, _res, next) => {
    const allowed = [...new Set(patterns.filter((pattern) => pattern.regex.test(req.path)).map((pattern) => pattern.method))];
    if (allowed.length > 0) {
      next(new HttpProblem('method_not_allowed', `${req.method} is not allowed here; use ${allowed.join(' or ')}.`, { headers: { Allow: allowed.join(', ') } }));
      return;
    }
    next(new HttpProblem('not_found', `Nothing is at ${req.method} ${req.path}.`));
  });
}
