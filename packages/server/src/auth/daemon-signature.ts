import { createHash, createPublicKey, verify } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Sql } from 'postgres';
import { contextOf } from '../http/context.js';
import { invalidJson, isJsonType, notJson, readBody } from '../http/body.js';
import { HttpProblem } from '../problems/problem.js';
import type { Throttle } from './throttle.js';
import { isCanonicalUuid } from '@hub/schemas';

/** How far a signed request's timestamp may be from the hub's clock (DECISIONS.md, Daemons). */
export const SIGNATURE_WINDOW_MS = 60_000;

const NONCE = /^[A-Za-z0-9_-]{16,64}$/;
const TIMESTAMP = /^\d{1,15}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{86}$/;

/** A refusal of the signature check: a 401 once counted (see `requireDaemon`). */
class Refused extends Error {}

const refused = (why: string) => new Refused(`The daemon request is not signed acceptably: ${why}.`);

/** The string a daemon signs: method, path with query, timestamp, nonce, and the body's SHA-256. */
export function signedString(
  method: string,
  pathWithQuery: string,
  timestamp: string,
  nonce: string,
  body: Buffer,
): string {
  const bodyDigest = createHash('sha256').update(body).digest('base64url');
  return `${method.toUpperCase()}\n${pathWithQuery}\n${timestamp}\n${nonce}\n${bodyDigest}`;
}

/**
 * Authenticates a signed daemon request (DECISIONS.md, Daemons), reading the raw body itself
 * (the signature covers its bytes; `req.body` is then the parsed JSON, or undefined). Refused
 * with 401: a missing or malformed header, a timestamp outside ±60 s, an unknown or retired
 * daemon, a bad signature, or a nonce seen before on any instance. The nonce is recorded, and the
 * daemon's presence moved on, in one statement after the signature is verified. With a
 * `throttle`, each refusal counts against the client's address: the 401 carries the RateLimit
 * headers, and past the limit the answer is 429 instead.
 */
export function requireDaemon(sql: Sql, maxBodyBytes: number, throttle?: Throttle): RequestHandler {
  const check = authenticate(sql, maxBodyBytes);
  return async (req, _res, next) => {
    try {
      await check(req);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      const headers = await throttle?.failedAuthentication(req);
      throw new HttpProblem('unauthorized', error.message, {
        headers: { 'WWW-Authenticate': 'Hub-Signature realm="hub"', ...headers },
      });
    }
    next();
  };
}

function authenticate(sql: Sql, maxBodyBytes: number): (req: Request) => Promise<void> {
  return async (req) => {
    const daemonId = req.get('hub-daemon');
    const timestamp = req.get('hub-timestamp');
    const nonce = req.get('hub-nonce');
    const signature = req.get('hub-signature');
    if (daemonId === undefined || timestamp === undefined || nonce === undefined || signature === undefined) {
      throw refused('send Hub-Daemon, Hub-Timestamp, Hub-Nonce and Hub-Signature');
    }
    if (!isCanonicalUuid(daemonId)) throw refused('Hub-Daemon is not a daemon id');
    if (!TIMESTAMP.test(timestamp)) throw refused('Hub-Timestamp must be Unix milliseconds');
    if (!NONCE.test(nonce)) throw refused('Hub-Nonce must be 16 to 64 URL-safe characters');
    if (!SIGNATURE.test(signature)) throw refused('Hub-Signature must be a base64url Ed25519 signature');
    const skew = Number(timestamp) - Date.now();
    if (Math.abs(skew) > SIGNATURE_WINDOW_MS) {
      throw refused(
        `Hub-Timestamp is ${Math.round(Math.abs(skew) / 1000)} s ${skew > 0 ? 'ahead of' : 'behind'} the hub's clock (at most 60 s); check the daemon's clock`,
      );
    }
    const body = await readBody(req, maxBodyBytes);
    const [daemon] = await sql<{ organizationId: string; x: string }[]>`
      select organization_id as "organizationId", public_key ->> 'x' as x from daemons where id = ${daemonId} and retired_at is null`;
    if (daemon === undefined) throw refused('the daemon is unknown or retired; enroll it again');
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: daemon.x }, format: 'jwk' });
    const message = Buffer.from(signedString(req.method, req.originalUrl, timestamp, nonce, body), 'utf8');
    if (!verify(null, message, key, Buffer.from(signature, 'base64url'))) throw refused('the signature does not match');
    const [fresh] = await sql`
      with nonce as (
        insert into daemon_nonces (daemon_id, nonce) values (${daemonId}, ${nonce}) on conflict do nothing returning 1
      ), seen as (
        update daemons set last_seen_at = now() where id = ${daemonId} and exists (select 1 from nonce) returning 1
      )
      select 1 from nonce`;
    if (fresh === undefined) throw refused('the nonce was used before');
    contextOf(req).daemon = { daemonId, organizationId: daemon.organizationId };
    req.body = parseBody(req.get('content-type'), body);
  };
}

function parseBody(type: string | undefined, body: Buffer): unknown {
  if (body.length === 0) return undefined;
  if (!isJsonType(type)) throw notJson();
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw invalidJson();
  }
}
