import type { Request } from 'express';

/** What the hub attaches to a request on its way through. */
export interface RequestContext {
  requestId: string;
  /** The operation the request reached (its OpenAPI operationId, or `metrics`): the metrics' label. */
  operationId?: string;
  /** Set by the API-key middleware. */
  auth?: { keyId: string; organizationId: string };
  /** Set by the daemon-signature middleware. */
  daemon?: { daemonId: string; organizationId: string };
  /** What the key check read alongside, for routes that asked it to (see `Prefetch`). */
  prefetched?: unknown;
  /** Why the body, read before the key check, was refused (see `scoped`'s `bodyFirst`). */
  bodyError?: unknown;
  /** The request's body and parameters, once the document's validator has let them through. */
  input?: unknown;
}

const contexts = new WeakMap<Request, RequestContext>();

export function setContext(req: Request, context: RequestContext): void {
  contexts.set(req, context);
}

export function contextOf(req: Request): RequestContext {
  const context = contexts.get(req);
  if (context === undefined) throw new Error('request context missing: is the request-id middleware installed?');
  return context;
}

export function authOf(req: Request): { keyId: string; organizationId: string } {
  const { auth } = contextOf(req);
  if (auth === undefined) throw new Error('authOf before authentication');
  return auth;
}

/** The body as the route's `read` returned it. */
export function inputOf<T>(req: Request): T {
  return contextOf(req).input as T;
}

export function daemonOf(req: Request): { daemonId: string; organizationId: string } {
  const { daemon } = contextOf(req);
  if (daemon === undefined) throw new Error('daemonOf before the signature check');
  return daemon;
}
