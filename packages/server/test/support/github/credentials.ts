// Who a request is, and whether GitHub would let it call the operation: the app's JWT for /app/…,
// a user's token for /user/…, an installation token that reaches the repository for /repos/….
import type { KeyObject } from 'node:crypto';
import type { Operation } from './description.js';
import { checkAppJwt } from './jwt.js';
import { key, type Permissions, type World } from './state.js';

export type Actor =
  | { kind: 'app' }
  | { kind: 'installation'; installationId: number; login: string; permissions: Permissions }
  | { kind: 'user'; login: string };

/** An answer as sent: the web side's redirects and pages, or a refusal not in JSON. */
export interface RawAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A request GitHub would refuse: its status and message (or the whole answer, where GitHub's is no
 * JSON error), and why, for `rejected`.
 */
export class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly githubMessage: string,
    readonly why: string,
    readonly answer?: RawAnswer,
  ) {
    super(why);
  }
}

export interface AppIdentity {
  id: number;
  slug: string;
  clientId: string;
  publicKey: KeyObject;
}

const notFound = (why: string) => new Refusal(404, 'Not Found', why);

/** The actor of a request to `operation`, or a Refusal. */
export function authenticate(
  world: World,
  app: AppIdentity,
  operation: Operation,
  params: Record<string, string | number>,
  authorization: string | undefined,
): Actor {
  const credential = /^(?:bearer|token)\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  const template = operation.template;
  if (template === '/app' || template.startsWith('/app/')) {
    if (credential === undefined) throw new Refusal(401, 'Requires authentication', 'no JWT for an /app endpoint');
    const check = checkAppJwt(credential, app);
    if (!check.ok) throw new Refusal(401, check.message, `the app's JWT: ${check.message}`);
    return { kind: 'app' };
  }
  if (credential === undefined) {
    if (template.startsWith('/repos/')) throw notFound('no credential (the repository is private)');
    throw new Refusal(401, 'Requires authentication', 'no credential');
  }
  const token = world.token(credential);
  if (token === undefined) throw new Refusal(401, 'Bad credentials', 'a token the stand-in did not issue, or expired');
  if (template.startsWith('/user')) {
    if (token.kind !== 'user') {
      throw new Refusal(
        403,
        'You must authenticate with an access token authorized to a GitHub App in order to list installations',
        `an installation token on ${template}`,
      );
    }
    return { kind: 'user', login: token.login };
  }
  if (template.startsWith('/repos/')) {
    const repository = `${String(params.owner)}/${String(params.repo)}`;
    if (token.kind === 'user') {
      const reachable = world.installationOf(repository)?.users?.some((user) => key(user) === key(token.login));
      if (reachable !== true) throw notFound(`${token.login}'s token does not reach ${repository}`);
      return { kind: 'user', login: token.login };
    }
    if (!token.repositories.some((name) => key(name) === key(repository))) {
      throw notFound(`the token of installation ${token.installationId} does not reach ${repository}`);
    }
    return {
      kind: 'installation',
      installationId: token.installationId,
      login: `${app.slug}[bot]`,
      permissions: token.permissions,
    };
  }
  throw new Refusal(404, 'Not Found', `the stand-in has no credential rule for ${template}`);
}

/** Refuses an installation without `level` on any of `permissions`, as GitHub does. */
export function requirePermission(actor: Actor, permissions: string[], level: 'read' | 'write'): void {
  if (actor.kind !== 'installation') return;
  const granted = permissions.some((name) => {
    const has = actor.permissions[name];
    return has === 'write' || (has === 'read' && level === 'read');
  });
  if (!granted) {
    throw new Refusal(
      403,
      'Resource not accessible by integration',
      `installation ${actor.installationId} lacks ${permissions.join(' or ')}: ${level}`,
    );
  }
}

export function actorLogin(actor: Actor, slug: string): string {
  return actor.kind === 'app' ? `${slug}[bot]` : actor.login;
}
