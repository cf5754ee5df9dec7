import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 32 base62 characters: 190 random bits. */
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
export const TOKEN_PREFIX = 'hub';

export type TokenKind = 'pk' | 'cli' | 'et' | 'admin';

/**
 * A new secret token as DECISIONS.md describes: `hub_<kind>_`, 190 random bits in base62, and a
 * 6-character base62 CRC32 of everything before it, so that secret scanners can tell a real
 * token from noise and a mistyped one is refused without a database look-up.
 */
export function generateToken(kind: TokenKind): string {
  let secret = '';
  while (secret.length < SECRET_LENGTH) {
    for (const byte of randomBytes(SECRET_LENGTH * 2)) {
      // 248 = 4 × 62: dropping larger bytes keeps every character equally likely.
      if (byte < 248 && secret.length < SECRET_LENGTH) secret += BASE62[byte % 62];
    }
  }
  const body = `${TOKEN_PREFIX}_${kind}_${secret}`;
  return body + checksum(body);
}

/** Whether `token` has the form and checksum of a token of `kind`. */
export function isWellFormed(token: string, kind: TokenKind): boolean {
  const prefix = `${TOKEN_PREFIX}_${kind}_`;
  if (token.length !== prefix.length + SECRET_LENGTH + CHECKSUM_LENGTH || !token.startsWith(prefix)) return false;
  if (!/^[0-9A-Za-z]+$/.test(token.slice(prefix.length))) return false;
  const body = token.slice(0, -CHECKSUM_LENGTH);
  return checksum(body) === token.slice(-CHECKSUM_LENGTH);
}

/** What the database keeps of a token: its SHA-256. */
export function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** The part of a key people see in listings: `hub_pk_` and the first 8 characters of the secret. */
export function displayPrefix(token: string, kind: TokenKind): string {
  const prefix = `${TOKEN_PREFIX}_${kind}_`;
  return token.slice(0, prefix.length + 8);
}

function checksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}
