import type { operations } from '@hub/schemas';
import type { Request, Response } from 'express';
import type { Prefetch } from '../auth/api-key.js';

export type OperationId = keyof operations;

type Op<Id extends OperationId> = operations[Id];
/** The JSON body an operation takes, as the document types it (undefined where it takes none). */
export type BodyOf<Id extends OperationId> =
  Op<Id> extends { requestBody: { content: { 'application/json': infer B } } }
    ? B
    : Op<Id> extends { requestBody?: { content: { 'application/json': infer B } } }
      ? B | undefined
      : undefined;
export type PathOf<Id extends OperationId> =
  Op<Id> extends { parameters: { path: infer P } }
    ? P extends Record<string, unknown>
      ? P
      : Record<string, never>
    : Record<string, never>;
export type QueryOf<Id extends OperationId> =
  Op<Id> extends { parameters: { query?: infer Q } }
    ? Q extends Record<string, unknown>
      ? Q
      : Record<string, never>
    : Record<string, never>;

/** A request that the document's validator has let through, with its input typed by the document. */
export interface Call<Id extends OperationId> {
  req: Request;
  res: Response;
  body: BodyOf<Id>;
  params: PathOf<Id>;
  query: QueryOf<Id>;
}

export interface Handler<Id extends OperationId> {
  handle(call: Call<Id>): void | Promise<void>;
  /** A read done in the key check's own statement (bearer operations; see `Prefetch`). */
  prefetch?: Prefetch;
  /**
   * Parse a body announced (Content-Length) at most this many bytes long before the key check, so
   * that `prefetch` can use it; a refused body is answered once the key has passed, keeping 401 and
   * 403 ahead of 400. A larger or chunked body is read after the key check, which then runs
   * without `prefetch` (the context's `prefetched` is null): the handler reads it itself.
   */
  bodyFirst?: number;
  /**
   * With `bodyFirst`: tried once that body is read and valid, before the key check. True when it
   * answered the request; false to go on with the key check and `handle`. It never refuses: a
   * request it cannot answer takes the exact path, and meets every refusal there.
   */
  attempt?: (call: Call<Id>) => Promise<boolean>;
  /**
   * For an operation whose security the feature checks itself (`githubSignature`): reads the body
   * (at most `limit` bytes), checks the credential over its bytes, and leaves the parsed JSON in
   * `req.body` for the document's validator; a refusal is thrown (401 before anything is stored).
   */
  authenticate?: (req: Request, limit: number) => Promise<void>;
}

/** The handlers of a resource, by operationId: each operation of the document has exactly one. */
export type Handlers = { [Id in OperationId]?: Handler<Id> };

/** A handler with nothing but its function. */
export function handle<Id extends OperationId>(
  fn: Handler<Id>['handle'],
  options: Omit<Handler<Id>, 'handle'> = {},
): Handler<Id> {
  return { handle: fn, ...options };
}
