// Signed daemon requests (DECISIONS.md, Daemons). The hub's tests import this to sign as a daemon.
import { createHash, createPrivateKey, randomBytes, sign, type KeyObject } from 'node:crypto';

export interface SignedHeaders {
  'Hub-Daemon': string;
  'Hub-Timestamp': string;
  'Hub-Nonce': string;
  'Hub-Signature': string;
}

export interface SigningInput {
  method: string;
  /** The request target as sent: `/api/v1/daemon/assignments/next?wait=25`. */
  pathWithQuery: string;
  /** Unix milliseconds, as a decimal string. */
  timestamp: string;
  nonce: string;
  /** The body bytes exactly as sent; absent or empty for a request without a body. */
  body?: string | Uint8Array;
}

/** `METHOD\nPATH_WITH_QUERY\nTIMESTAMP\nNONCE\nBASE64URL(SHA-256(BODY))`: what the signature covers. */
export function signingString(input: SigningInput): string {
  const bodyDigest = createHash('sha256')
    .update(input.body ?? new Uint8Array())
    .digest('base64url');
  return [input.method.toUpperCase(), input.pathWithQuery, input.timestamp, input.nonce, bodyDigest].join('\n');
}

/** 24 random bytes: 32 base64url characters, inside the hub's 16–64. */
export function makeNonce(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * The four headers of a signed daemon request. `timestamp` and `nonce` default to now and a
 * fresh random nonce; tests pass them to sign a stale or replayed request on purpose.
 */
export function signRequest(request: {
  method: string;
  pathWithQuery: string;
  body?: string | Uint8Array;
  daemonId: string;
  /** The daemon's Ed25519 private key, as a key object or PKCS8 PEM. */
  privateKey: KeyObject | string;
  timestamp?: number;
  nonce?: string;
}): SignedHeaders {
  const timestamp = String(request.timestamp ?? Date.now());
  const nonce = request.nonce ?? makeNonce();
  const key = typeof request.privateKey === 'string' ? createPrivateKey(request.privateKey) : request.privateKey;
  const message = signingString({ ...request, timestamp, nonce });
  // Ed25519 takes no digest algorithm: null.
  const signature = sign(null, Buffer.from(message, 'utf8'), key).toString('base64url');
  return { 'Hub-Daemon': request.daemonId, 'Hub-Timestamp': timestamp, 'Hub-Nonce': nonce, 'Hub-Signature': signature };
}
