import { type Express, type Request, type RequestHandler } from 'express';
import { requireAdmin } from '../auth/admin.js';
import { requireScope, type Scope } from '../auth/api-key.js';
import { requireDaemon } from '../auth/daemon-signature.js';
import type { Platform } from './platform.js';
import { operationsOf, type Node, type OperationSpec } from '../openapi/contract.js';
import type { ContractValidator } from '../openapi/validator.js';
import { HttpProblem, toProblem } from '../problems/problem.js';
import { contextOf } from './context.js';
import { closeUnreadBody, formBody, jsonBody, tooLarge } from './body.js';
import type { Handler, Handlers, OperationId } from './operation.js';
import { bodyLimit } from './body-limits.js';

/**
 * Mounts every operation of the document on its handler, by operationId: an operation without a
 * handler, or a handler without an operation, stops the hub here. Each request goes through its
 * operation's authentication (from `security`), its JSON body, the document's validator, then the
 * handler. Returns the operations, for `mountFallback`.
 */
export function mountOperations(
  app: Express,
  hub: Platform,
  document: Node,
  validator: ContractValidator,
  handlers: Handlers,
): OperationSpec[] {
  const operations = operationsOf(document);
  const documented = new Set(operations.map((operation) => operation.operationId));
  const stray = Object.keys(handlers).filter((id) => !documented.has(id));
  if (stray.length > 0)
    throw new Error(`handlers for operations the OpenAPI document does not have: ${stray.join(', ')}`);
  const missing = operations
    .filter((operation) => handlers[operation.operationId as OperationId] === undefined)
    .map((operation) => operation.operationId);
  if (missing.length > 0)
    throw new Error(`operations of the OpenAPI document without a handler: ${missing.join(', ')}`);
  for (const operation of operations) {
    const handler = handlers[operation.operationId as OperationId] as Handler<OperationId>;
    const named: RequestHandler = (req, _res, next) => {
      contextOf(req).operationId = operation.operationId;
      next();
    };
    const chain = [
      named,
      ...(hub.options.validateResponses === true ? [checkResponses(hub, validator, operation)] : []),
      ...steps(hub, validator, operation, handler),
    ];
    app[operation.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete'](operation.expressPath, ...chain);
  }
  return operations;
}

function steps(
  hub: Platform,
  validator: ContractValidator,
  operation: OperationSpec,
  handler: Handler<OperationId>,
): RequestHandler[] {
  const { security } = operation;
  const takesBody = operation.body !== undefined || operation.form === true;
  const limit = takesBody ? bodyLimit(operation, hub.options.maxBodyBytes) : 0;
  const scope = security.kind === 'bearer' ? (security.scope as Scope | undefined) : undefined;
  const bearer = (prefetch: Handler<OperationId>['prefetch']) =>
    requireScope(hub.authSql, scope, prefetch, hub.throttle, hub.options.cliCredentials);
  const auth: RequestHandler[] =
    security.kind === 'bearer'
      ? [bearer(handler.prefetch)]
      : security.kind === 'admin'
        ? [requireAdmin(hub.options.adminToken, hub.throttle)]
        : security.kind === 'daemon'
          ? // A body announced larger than the limit is refused before the signature check reads it.
            [refuseDeclaredOver(limit), requireDaemon(hub.sql, limit, hub.throttle)]
          : security.kind === 'own'
            ? [refuseDeclaredOver(limit), ownAuthentication(handler, operation, limit)]
            : [];
  const takesInput = operation.body !== undefined || operation.parameters.length > 0;
  const request = takesInput ? validator.request(operation) : undefined;
  const validate: RequestHandler = (req, _res, next) => {
    if (request !== undefined)
      contextOf(req).input = request.check({
        body: req.body,
        params: req.params as Record<string, string>,
        query: req.query as Record<string, unknown>,
      });
    next();
  };
  let checks: RequestHandler[];
  // The OAuth endpoints check their own form (their errors are OAuth errors, not problems).
  if (operation.form === true) checks = [...auth, formBody(limit)];
  // A signed daemon request's body is read by the signature check, which covers its bytes.
  else if (operation.body === undefined || security.kind === 'daemon' || security.kind === 'own')
    checks = [...auth, validate];
  // A small body (announced by Content-Length) is parsed and validated before the key check, for
  // its prefetch, its refusals answered after it; a larger one is read only once the key passed.
  else if (handler.bodyFirst !== undefined) {
    const small = handler.bodyFirst;
    const tryFirst = handler.attempt === undefined ? [] : [attempting(handler.attempt)];
    const first = chain([deferErrors(jsonBody(small)), deferErrors(validate), ...tryFirst, ...auth, raiseDeferred]);
    const after = chain([bearer(undefined), jsonBody(limit), validate]);
    checks = [(req, res, next) => (announcedUpTo(req, small) ? first : after)(req, res, next)];
  } else checks = [...auth, jsonBody(limit), validate];
  const run: RequestHandler = async (req, res) => {
    const input = contextOf(req).input ?? { body: undefined, params: {}, query: {} };
    await handler.handle({ req, res, ...(input as object) } as never);
  };
  return [...(takesBody ? [closeUnreadBody()] : []), ...checks, run];
}

/** The handler's own credential check (`Handler.authenticate`), which reads the body itself. */
function ownAuthentication(handler: Handler<OperationId>, operation: OperationSpec, limit: number): RequestHandler {
  const authenticate = handler.authenticate;
  if (authenticate === undefined)
    throw new Error(`${operation.operationId} checks its own credential but its handler has no authenticate`);
  return async (req, _res, next) => {
    await authenticate(req, limit);
    next();
  };
}

/** Whether a request's body is announced (Content-Length, not chunked) at most `bytes` long; no body is. */
function announcedUpTo(req: Request, bytes: number): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && (length === undefined || Number(length) <= bytes);
}

/** 413 at once for a body whose Content-Length is over `limit`: nothing of it is read. */
function refuseDeclaredOver(limit: number): RequestHandler {
  return (req, _res, next) => {
    const length = req.headers['content-length'];
    next(length !== undefined && Number(length) > limit ? tooLarge(limit) : undefined);
  };
}

/**
 * Handlers run in turn as one, as an Express router of their own would run them (an error, a
 * thrown one or a rejected promise, skips the rest), without a router's matching on each request.
 */
function chain(handlers: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let index = 0;
    const step = (error?: unknown) => {
      const handler = handlers[index++];
      if (error !== undefined || handler === undefined) {
        next(error);
        return;
      }
      try {
        const result: unknown = handler(req, res, step);
        if (result instanceof Promise)
          result.catch((rejected: unknown) => step(rejected ?? new Error('Rejected promise')));
      } catch (thrown) {
        step(thrown);
      }
    };
    step();
  };
}

/** `Handler.attempt` as a step: ends the request when it answered, else goes on (a refused body goes on at once). */
function attempting(attempt: NonNullable<Handler<OperationId>['attempt']>): RequestHandler {
  return async (req, res, next) => {
    const context = contextOf(req);
    if (context.bodyError !== undefined || context.input === undefined) {
      next();
      return;
    }
    if (!(await attempt({ req, res, ...(context.input as object) } as never))) next();
  };
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
      const result: unknown = check(req, res, done);
      if (result instanceof Promise) result.catch(done);
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
function checkResponses(hub: Platform, validator: ContractValidator, operation: OperationSpec): RequestHandler {
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
      const problem = new HttpProblem(
        'internal_error',
        `The response does not match the OpenAPI document: ${errors.join('; ')}`,
      );
      hub.log.error('response does not match the document', { operationId: operation.operationId, errors });
      res.status(500).type('application/problem+json');
      return send(
        JSON.stringify(
          toProblem(problem, { problemBase: hub.options.problemBase, requestId: contextOf(req).requestId }),
        ),
      );
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
    const allowed = [
      ...new Set(patterns.filter((pattern) => pattern.regex.test(req.path)).map((pattern) => pattern.method)),
    ];
    if (allowed.length > 0) {
      next(
        new HttpProblem('method_not_allowed', `${req.method} is not allowed here; use ${allowed.join(' or ')}.`, {
          headers: { Allow: allowed.join(', ') },
        }),
      );
      return;
    }
    next(new HttpProblem('not_found', `Nothing is at ${req.method} ${req.path}.`));
  });
}
