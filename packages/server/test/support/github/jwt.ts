// The app's JSON Web Token, checked as GitHub checks it: RS256 signed with the app's private key,
// `iss` the app's id (or client id), at most ten minutes long, not expired, not issued in the future
// (60 s of clock drift allowed). The messages are GitHub's.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';

export type JwtCheck = { ok: true } | { ok: false; message: string };

const UNDECODABLE = 'A JSON web token could not be decoded';

export function checkAppJwt(jwt: string, app: { id: number; clientId: string; publicKey: KeyObject }): JwtCheck {
  const parts = jwt.split('.');
  if (parts.length !== 3) return { ok: false, message: UNDECODABLE };
  const [encodedHeader, encodedClaims, signature] = parts as [string, string, string];
  const header = decode(encodedHeader);
  const claims = decode(encodedClaims);
  if (header === undefined || claims === undefined || header.alg !== 'RS256')
    return { ok: false, message: UNDECODABLE };
  const signed = verify(
    'RSA-SHA256',
    Buffer.from(`${encodedHeader}.${encodedClaims}`),
    app.publicKey,
    Buffer.from(signature, 'base64url'),
  );
  if (!signed) return { ok: false, message: UNDECODABLE };
  const { iss, iat, exp } = claims;
  if (String(iss) !== String(app.id) && iss !== app.clientId) {
    return { ok: false, message: `'Issuer' claim ('iss') must be an Integer` };
  }
  const now = Math.floor(Date.now() / 1000);
  if (typeof iat !== 'number' || !Number.isInteger(iat) || iat > now + 60) {
    return {
      ok: false,
      message: `'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued`,
    };
  }
  if (typeof exp !== 'number' || exp <= now) {
    return {
      ok: false,
      message: `'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires`,
    };
  }
  if (exp - iat > 600) return { ok: false, message: `'Expiration time' claim ('exp') is too far in the future` };
  return { ok: true };
}

export function publicKeyOf(privateKeyPem: string): KeyObject {
  return createPublicKey(privateKeyPem);
}

function decode(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
