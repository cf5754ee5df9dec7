import { randomBytes } from 'node:crypto';
import { digest } from '../auth/secrets.js';

/**
 * A session's or setup link's secret: 32 random bytes (256 bits) in base64url, 43 characters.
 * Only its SHA-256 (`secretDigest`) is stored.
 */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether the text could be a secret of `newSecret`: anything else is refused without a look-up. */
export function wellFormedSecret(secret: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(secret);
}

export function secretDigest(secret: string): Buffer {
  return digest(secret);
}
