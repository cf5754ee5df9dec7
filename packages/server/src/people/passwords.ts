import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { normalizePassword } from '@hub/schemas';

/**
 * scrypt's cost: N = 2^15, r = 8, p = 1 (OWASP's minimum for scrypt), a 64-byte key from a
 * 16-byte random salt. It takes 128·N·r = 32 MiB and about 100 ms a hash, off the event loop
 * (libuv's thread pool). Stored hashes carry their parameters, so raising them later only
 * affects new hashes.
 */
export const SCRYPT = { N: 2 ** 15, r: 8, p: 1, keyLength: 64, saltLength: 16 } as const;
/** Node's default maxmem (32 MiB) is exactly 128·N·r and refuses it; twice that leaves room. */
const MAX_MEMORY = 2 * 128 * SCRYPT.N * SCRYPT.r;
/** Stored parameters beyond these are refused rather than computed (a broken row is no DoS). */
const MAX_N = 2 ** 20;

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SCRYPT.saltLength);
  const { N, r, p, keyLength } = SCRYPT;
  const key = await derive(password, salt, keyLength, { N, r, p, maxmem: MAX_MEMORY });
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether the password matches the stored hash; false for a hash this code cannot read. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (parsed === undefined) return false;
  const { N, r, p, salt, key } = parsed;
  const candidate = await derive(password, salt, key.length, {
    N,
    r,
    p,
    maxmem: Math.max(MAX_MEMORY, 2 * 128 * N * r),
  });
  return timingSafeEqual(candidate, key);
}

let dummy: Promise<string> | undefined;

/**
 * The same work as a verification, for a sign-in whose account does not exist, so that the
 * time of the answer does not tell which e-mails have accounts. Always false.
 */
export async function verifyNothing(password: string): Promise<false> {
  dummy ??= hashPassword(randomBytes(32).toString('base64url'));
  await verifyPassword(password, await dummy);
  return false;
}

function parse(stored: string): { N: number; r: number; p: number; salt: Buffer; key: Buffer } | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map((part) => (/^[1-9][0-9]{0,7}$/.test(part) ? Number(part) : NaN)) as [
    number,
    number,
    number,
  ];
  if (!(N > 1 && N <= MAX_N && (N & (N - 1)) === 0 && r >= 1 && r <= 32 && p >= 1 && p <= 16)) return undefined;
  const salt = Buffer.from(parts[4] as string, 'base64url');
  const key = Buffer.from(parts[5] as string, 'base64url');
  if (salt.length < 16 || key.length < 32 || key.length > 128) return undefined;
  return { N, r, p, salt, key };
}

function derive(password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(normalizePassword(password), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}
