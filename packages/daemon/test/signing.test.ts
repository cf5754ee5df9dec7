// Signed daemon requests, checked with node:crypto against the public key, as the hub checks them.
import { createHash, generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signingString, signRequest } from '../src/index.js';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const EMPTY_SHA256 = '47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU';

function verifies(headers: Record<string, string>, method: string, pathWithQuery: string, body: Buffer): boolean {
  const digest = createHash('sha256').update(body).digest('base64url');
  const message = `${method}\n${pathWithQuery}\n${headers['Hub-Timestamp']}\n${headers['Hub-Nonce']}\n${digest}`;
  return verify(
    null,
    Buffer.from(message, 'utf8'),
    publicKey,
    Buffer.from(headers['Hub-Signature'] as string, 'base64url'),
  );
}

describe('signRequest', () => {
  it('signs METHOD, path with query, timestamp, nonce and the body digest, verifiable with the public key', () => {
    const body = JSON.stringify({ status: 'succeeded', message: 'ünïcode' });
    const before = Date.now();
    const headers = signRequest({
      method: 'POST',
      pathWithQuery: '/api/v1/daemon/executions/e1/status',
      body,
      daemonId: 'd-1',
      privateKey,
    });

    expect(headers['Hub-Daemon']).toBe('d-1');
    expect(Number(headers['Hub-Timestamp'])).toBeGreaterThanOrEqual(before);
    expect(Number(headers['Hub-Timestamp'])).toBeLessThanOrEqual(Date.now());
    expect(headers['Hub-Timestamp']).toMatch(/^\d{13}$/);
    expect(headers['Hub-Nonce']).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(headers['Hub-Signature']).toMatch(/^[A-Za-z0-9_-]{86}$/);
    expect(verifies({ ...headers }, 'POST', '/api/v1/daemon/executions/e1/status', Buffer.from(body, 'utf8'))).toBe(
      true,
    );
    expect(verifies({ ...headers }, 'POST', '/api/v1/daemon/executions/e2/status', Buffer.from(body, 'utf8'))).toBe(
      false,
    );
    expect(
      verifies({ ...headers }, 'POST', '/api/v1/daemon/executions/e1/status', Buffer.from(`${body} `, 'utf8')),
    ).toBe(false);
  });

  it('signs exactly this string', () => {
    const input = {
      method: 'get',
      pathWithQuery: '/api/v1/daemon/assignments/next?wait=25',
      timestamp: '1700000000000',
      nonce: 'abcdefghijklmnopqrstuvwxyz012345',
    };
    expect(signingString(input)).toBe(
      `GET\n/api/v1/daemon/assignments/next?wait=25\n1700000000000\nabcdefghijklmnopqrstuvwxyz012345\n${EMPTY_SHA256}`,
    );
    expect(signingString({ ...input, method: 'POST', body: '{"runtimes":[]}' })).toBe(
      `POST\n/api/v1/daemon/assignments/next?wait=25\n1700000000000\nabcdefghijklmnopqrstuvwxyz012345\n${createHash('sha256').update('{"runtimes":[]}').digest('base64url')}`,
    );
  });

  it('takes the given timestamp and nonce, a PEM key, and bytes or text alike', () => {
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const fixed = {
      method: 'POST',
      pathWithQuery: '/api/v1/daemon/heartbeat',
      daemonId: 'd-1',
      timestamp: 1_700_000_000_000,
      nonce: 'n'.repeat(16),
    };
    const fromText = signRequest({ ...fixed, body: '{"a":"é"}', privateKey: pem });
    const fromBytes = signRequest({ ...fixed, body: Buffer.from('{"a":"é"}', 'utf8'), privateKey });

    expect(fromText).toEqual(fromBytes);
    expect(fromText['Hub-Timestamp']).toBe('1700000000000');
    expect(fromText['Hub-Nonce']).toBe('nnnnnnnnnnnnnnnn');
    expect(verifies({ ...fromText }, 'POST', '/api/v1/daemon/heartbeat', Buffer.from('{"a":"é"}', 'utf8'))).toBe(true);
  });

  it('uses a fresh nonce for every request', () => {
    const nonces = new Set(
      Array.from(
        { length: 100 },
        () => signRequest({ method: 'GET', pathWithQuery: '/', daemonId: 'd', privateKey })['Hub-Nonce'],
      ),
    );
    expect(nonces.size).toBe(100);
  });
});
