import { createHmac, randomBytes } from 'node:crypto';

// Standard Webhooks' signature (DECISIONS.md, Outbound webhooks): `v1,` and the base64 HMAC-SHA256
// of `id.timestamp.body`, keyed with the bytes that the secret's base64 part after `whsec_` holds.

const PREFIX = 'whsec_';

/** A new endpoint's secret: 32 random bytes. */
export const newSecret = (): string => `${PREFIX}${randomBytes(32).toString('base64')}`;

/** The `webhook-signature` header of one attempt. */
export function signatureOf(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
