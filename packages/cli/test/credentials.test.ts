// The credential store: one credential per exact hub origin, in a 0600 file in a 0700
// directory, replaced atomically, and never shown in an error.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { activeOrigin, credentialFor, readCredentials, removeCredential, saveCredential } from '../src/credentials.js';

const KEY = 'hub_pk_secretsecretsecret0123';
const CLI = 'hub_cli_secretsecretsecret4567';

let root: string;
let dir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'hub-credentials-'));
  dir = join(root, 'config', 'hub');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const file = () => JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'));

describe('the credential store', () => {
  it('is empty while the file does not exist, and creates nothing by reading', async () => {
    expect(await readCredentials(dir)).toEqual({ active: null, credentials: {} });
    expect(await activeOrigin(dir)).toBeUndefined();
    expect(await credentialFor(dir, 'http://localhost:8080')).toBeUndefined();
    expect(await removeCredential(dir, 'http://localhost:8080')).toBeUndefined();
    expect(() => statSync(root + '/config')).toThrow();
  });

  it('creates credentials.json with mode 0600 in a directory with mode 0700, and nothing else', async () => {
    await saveCredential(dir, 'http://localhost:8080', KEY, 'api_key', { activate: true });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'credentials.json')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['credentials.json']);
  });

  it('tightens a directory that exists with looser permissions', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    chmodSync(dir, 0o755);
    await saveCredential(dir, 'http://localhost:8080', KEY, 'api_key', { activate: false });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('stores the documented format, keyed by normalized origin', async () => {
    await saveCredential(dir, 'HTTPS://Hub.Example.com:443/', KEY, 'api_key', { activate: true });
    expect(file()).toEqual({
      active: 'https://hub.example.com',
      credentials: {
        'https://hub.example.com': {
          token: KEY,
          kind: 'api_key',
          savedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        },
      },
    });
  });

  it('keeps one credential per exact origin; activation is a choice of the caller', async () => {
    await saveCredential(dir, 'http://localhost:8080', KEY, 'api_key', { activate: true });
    await saveCredential(dir, 'https://hub.example.com', CLI, 'cli', { activate: false });
    expect(await activeOrigin(dir)).toBe('http://localhost:8080');
    expect(await credentialFor(dir, 'https://hub.example.com')).toMatchObject({ token: CLI, kind: 'cli' });
    expect(await credentialFor(dir, 'http://127.0.0.1:8080')).toBeUndefined();
    expect(await credentialFor(dir, 'https://hub.example.com:8443')).toBeUndefined();

    await saveCredential(dir, 'https://hub.example.com', KEY, 'api_key', { activate: true });
    expect(await activeOrigin(dir)).toBe('https://hub.example.com');
    expect(Object.keys(file().credentials).sort()).toEqual(['http://localhost:8080', 'https://hub.example.com']);
    expect(await credentialFor(dir, 'https://hub.example.com')).toMatchObject({ token: KEY, kind: 'api_key' });
  });

  it('removes one origin and returns what it removed; removing the active one leaves none active', async () => {
    await saveCredential(dir, 'http://localhost:8080', KEY, 'api_key', { activate: false });
    await saveCredential(dir, 'https://hub.example.com', CLI, 'cli', { activate: true });
    expect(await removeCredential(dir, 'https://hub.example.com')).toMatchObject({ token: CLI, kind: 'cli' });
    expect(file()).toEqual({
      active: null,
      credentials: { 'http://localhost:8080': expect.objectContaining({ token: KEY }) },
    });
    expect(await activeOrigin(dir)).toBeUndefined();
    expect(await removeCredential(dir, 'https://hub.example.com')).toBeUndefined();
  });

  it('replaces the file atomically: concurrent readers always see a whole file, and no temporary file is left', async () => {
    await saveCredential(dir, 'http://localhost:8080', KEY, 'api_key', { activate: true });
    const origins = Array.from({ length: 40 }, (_, index) => `http://host-${index}.example`);
    let reads = 0;
    let writing = true;
    const reader = (async () => {
      while (writing) {
        // Throws on a half-written file (not JSON, or not a credentials file).
        await readCredentials(dir);
        reads += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    for (const origin of origins)
      await saveCredential(dir, origin, `hub_pk_${'x'.repeat(2_000)}`, 'api_key', { activate: false });
    writing = false;
    await reader;
    expect(reads).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual(['credentials.json']);
    expect(Object.keys(file().credentials)).toHaveLength(41);
  });

  it.each([
    [
      'not JSON, without quoting it',
      `{"active":null,"credentials":{"http://a.example":{"token":"${KEY}"`,
      /is not valid JSON; fix or remove it/,
    ],
    ['a list', '[]', /is not a credentials file of this CLI/],
    [
      'an origin that is not normalized',
      JSON.stringify({
        active: null,
        credentials: { 'HTTP://A.example/': { token: KEY, kind: 'api_key', savedAt: 'x' } },
      }),
      /not a credentials file/,
    ],
    [
      'an unknown kind',
      JSON.stringify({
        active: null,
        credentials: { 'http://a.example': { token: KEY, kind: 'password', savedAt: 'x' } },
      }),
      /not a credentials file/,
    ],
    [
      'a missing token',
      JSON.stringify({ active: null, credentials: { 'http://a.example': { kind: 'cli', savedAt: 'x' } } }),
      /not a credentials file/,
    ],
  ])('refuses a file that is %s, with exit code 2 and no secret in the message', async (_, content, message) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'credentials.json'), content);
    const error = await readCredentials(dir).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ exitCode: 2, message: expect.stringMatching(message) });
    expect((error as Error).message).not.toContain('secret');
    await expect(saveCredential(dir, 'http://b.example', CLI, 'cli', { activate: true })).rejects.toMatchObject({
      exitCode: 2,
    });
    expect(readFileSync(join(dir, 'credentials.json'), 'utf8')).toBe(content);
  });
});
