import { digest, generateToken, isWellFormed } from '../auth/secrets.js';
import type { Runtime } from '../db/daemons.js';
import type { Hub } from '../hub.js';
import { BodyCheck, isObject } from '../http/body.js';
import { authOf, inputOf } from '../http/context.js';
import { jsonBody } from '../http/middleware.js';
import { HttpProblem } from '../problems/problem.js';
import type { Route } from './registry.js';
import { scoped } from './scoped.js';

const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const PROVIDER = /^[a-z0-9][a-z0-9._-]{0,62}$/;
const BASE64URL_32_BYTES = /^[A-Za-z0-9_-]{43}$/;

const tokenInvalid = () =>
  new HttpProblem('enrollment_token_invalid', 'The enrollment token is unknown, already used, expired, or its API key was revoked; ask for a new one.');

/** Enrollment tokens (section 4.9) and daemon enrollment (DECISIONS.md, Daemons). */
export function daemonRoutes(hub: Hub): Route[] {
  const json = jsonBody(hub.options.maxBodyBytes);
  return [
    scoped(hub, 'POST', '/api/v1/daemons/enrollment-tokens', 'daemons:enroll', async (req, res) => {
      const { organizationId, keyId } = authOf(req);
      const token = generateToken('et');
      const issued = await hub.daemons.issueToken(organizationId, keyId, digest(token));
      if (issued === undefined) {
        throw new HttpProblem('unauthorized', 'The API key was revoked.', { headers: { 'WWW-Authenticate': 'Bearer realm="hub"' } });
      }
      res.status(201).json({ token, expiresAt: issued.expiresAt.toISOString() });
    }, { read: readNoBody }),
    {
      method: 'POST',
      path: '/api/v1/daemons/enroll',
      read: readEnrollBody,
      handlers: [
        json,
        async (req, res) => {
          const enrollment = inputOf<Enrollment>(req);
          if (!isWellFormed(enrollment.token, 'et')) throw tokenInvalid();
          const result = await hub.daemons.enroll(digest(enrollment.token), enrollment);
          if (!result.ok && result.reason === 'token_invalid') throw tokenInvalid();
          if (!result.ok) {
            throw new HttpProblem('daemon_name_taken', `An active daemon of the organization is named "${enrollment.name}"; enroll with replace: true to retire it.`);
          }
          res.status(201).json({ daemonId: result.daemonId, name: result.name });
        },
      ],
    },
  ];
}

function readNoBody(body: unknown): void {
  if (body !== undefined && !(isObject(body) && Object.keys(body).length === 0)) {
    throw new HttpProblem('invalid_request', 'This operation takes no body, an empty body, or {}.', {
      issues: [{ pointer: '', code: 'request.type', message: 'Send no body, an empty body, or {}.' }],
    });
  }
}

interface Enrollment {
  token: string;
  name: string;
  publicKey: object;
  runtimes: Runtime[];
  replace: boolean;
}

function readEnrollBody(body: unknown): Enrollment {
  const check = new BodyCheck(body);
  const fields = check.object(['token', 'name', 'publicKey', 'runtimes', 'replace']);
  if (fields === undefined) check.done();
  const given = fields as Record<string, unknown>;
  // Any string: a malformed token is refused like an unknown one, with 401.
  const token = check.string(given, 'token');
  const name = check.string(given, 'name', { pattern: NAME, patternHint: 'must be 1 to 63 lowercase letters, digits and hyphens, starting with a letter or digit' });
  const key = given.publicKey;
  if (!isObject(key) || key.kty !== 'OKP' || key.crv !== 'Ed25519' || typeof key.x !== 'string' || !BASE64URL_32_BYTES.test(key.x) || Object.keys(key).some((k) => !['kty', 'crv', 'x'].includes(k))) {
    check.add('/publicKey', key === undefined ? 'request.required' : 'request.type', 'publicKey must be an Ed25519 public key as a JWK: { "kty": "OKP", "crv": "Ed25519", "x": <43 base64url characters> }.');
  }
  const runtimes = given.runtimes;
  if (!Array.isArray(runtimes)) {
    check.add('/runtimes', runtimes === undefined ? 'request.required' : 'request.type', 'runtimes must be a list of { provider, modes?, models? }.');
  } else {
    runtimes.forEach((runtime: unknown, index) => checkRuntime(check, runtime, `/runtimes/${index}`));
  }
  if (given.replace !== undefined && typeof given.replace !== 'boolean') check.add('/replace', 'request.type', 'replace must be a boolean.');
  check.done();
  return {
    token: token as string,
    name: name as string,
    publicKey: { kty: 'OKP', crv: 'Ed25519', x: (key as { x: string }).x },
    runtimes: runtimes as Runtime[],
    replace: given.replace === true,
  };
}

export function checkRuntime(check: BodyCheck, runtime: unknown, at: string): void {
  if (!isObject(runtime) || typeof runtime.provider !== 'string' || !PROVIDER.test(runtime.provider)) {
    check.add(at, 'request.type', 'A runtime is { provider, modes?, models? } with a provider such as claude or codex.');
    return;
  }
  for (const key of Object.keys(runtime)) {
    if (!['provider', 'modes', 'models'].includes(key)) check.add(`${at}/${key}`, 'request.unknown_field', `Unknown field "${key}". Allowed: provider, modes, models.`);
  }
  for (const key of ['modes', 'models'] as const) {
    const list = runtime[key];
    if (list !== undefined && !(Array.isArray(list) && list.every((item) => typeof item === 'string' && item.length > 0 && item.length <= 200))) {
      check.add(`${at}/${key}`, 'request.type', `${key} must be a list of non-empty strings.`);
    }
  }
}
