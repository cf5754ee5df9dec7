// The identity store: one identity per hub origin, in a 0600 file in a 0700 directory, replaced atomically.
import { generateKeyPairSync } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configDir } from '../src/config-dir.js';
import { readIdentities, saveIdentity, selectIdentity, type DaemonIdentity } from '../src/daemon/identity.js';

let root: string;
let dir: string;

function identity(origin: string, name = 'dev-box'): DaemonIdentity {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    origin,
    daemonId: `id-${name}-${origin}`,
    name,
    privateKey: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
    publicKey: { kty: 'OKP', crv: 'Ed25519', x: publicKey.export({ format: 'jwk' }).x as string },
    enrolledAt: new Date().toISOString(),
  };
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'hub-identity-'));
  dir = join(root, 'config', 'hub');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the identity store', () => {
  it('creates daemons.json with mode 0600 in a directory with mode 0700', async () => {
    await saveIdentity(dir, identity('http://localhost:8080'));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'daemons.json')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['daemons.json']);
  });

  it('keeps one identity per origin, and replacing one leaves the others', async () => {
    const local = identity('http://localhost:8080');
    const remote = identity('https://hub.example.com');
    const again = identity('http://localhost:8080', 'dev-box-2');
    expect(await saveIdentity(dir, local)).toBeUndefined();
    expect(await saveIdentity(dir, remote)).toBeUndefined();
    expect(await saveIdentity(dir, again)).toEqual(local);

    expect(await readIdentities(dir)).toEqual([again, remote]);
    const file = JSON.parse(readFileSync(join(dir, 'daemons.json'), 'utf8'));
    expect(file).toEqual({
      version: 1,
      daemons: { 'http://localhost:8080': again, 'https://hub.example.com': remote },
    });
  });

  it('replaces the file by renaming a new one over it: a reader holding the old file still reads it whole', async () => {
    await saveIdentity(dir, identity('http://localhost:8080'));
    const path = join(dir, 'daemons.json');
    const before = readFileSync(path, 'utf8');
    const inode = statSync(path).ino;
    const reader = openSync(path, 'r');
    try {
      await saveIdentity(dir, identity('https://hub.example.com'));
      const buffer = Buffer.alloc(before.length + 100);
      const read = readSync(reader, buffer, 0, buffer.length, 0);
      expect(buffer.subarray(0, read).toString('utf8')).toBe(before);
    } finally {
      closeSync(reader);
    }
    expect(statSync(path).ino).not.toBe(inode);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['daemons.json']);
  });

  it('tightens a directory that exists with looser permissions', async () => {
    await saveIdentity(dir, identity('http://localhost:8080'));
    chmodSync(dir, 0o755);
    await saveIdentity(dir, identity('https://hub.example.com'));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('reads nothing from a directory without the file, and refuses a damaged file rather than overwrite it', async () => {
    expect(await readIdentities(dir)).toEqual([]);
    await saveIdentity(dir, identity('http://localhost:8080'));
    writeFileSync(join(dir, 'daemons.json'), '{"version": 1, "daemons": ');
    await expect(readIdentities(dir)).rejects.toThrow(/daemons.json is not valid JSON/);
    await expect(saveIdentity(dir, identity('https://hub.example.com'))).rejects.toMatchObject({ exitCode: 2 });
    // The message never quotes the file: it holds private keys.
    writeFileSync(join(dir, 'daemons.json'), '{"privateKey": "-----BEGIN PRIVATE KEY-----SECRET" x');
    await expect(readIdentities(dir)).rejects.toThrow(/^(?![\s\S]*SECRET)[\s\S]*daemons.json is not valid JSON/);
    writeFileSync(join(dir, 'daemons.json'), '{"version": 2, "daemons": {}}');
    await expect(readIdentities(dir)).rejects.toThrow(/not a daemons file of this CLI/);
  });
});

describe('selectIdentity', () => {
  const local = identity('http://localhost:8080', 'laptop');
  const remote = identity('https://hub.example.com', 'build-box');

  it('picks the origin asked for, else the only one stored', () => {
    expect(selectIdentity([local, remote], 'https://hub.example.com', dir)).toBe(remote);
    expect(selectIdentity([local], undefined, dir)).toBe(local);
  });

  it('lists what is stored when it cannot pick', () => {
    expect(() => selectIdentity([local, remote], undefined, dir)).toThrow(
      /several hubs.*\n  http:\/\/localhost:8080  \(laptop\)\n  https:\/\/hub.example.com  \(build-box\)/,
    );
    expect(() => selectIdentity([local], 'https://other.example', dir)).toThrow(
      /no daemon enrolled with https:\/\/other.example\. Enrolled with:\n  http:\/\/localhost:8080  \(laptop\)/,
    );
    expect(() => selectIdentity([], undefined, dir)).toThrow(
      /no enrolled daemon .*hub daemon enroll ORIGIN --name NAME/,
    );
    expect(() => selectIdentity([], undefined, dir)).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});

describe('configDir', () => {
  it.each([
    [{ HUB_CONFIG_DIR: '/tmp/x', XDG_CONFIG_HOME: '/xdg', HOME: '/home/me' }, '/tmp/x'],
    [{ XDG_CONFIG_HOME: '/xdg', HOME: '/home/me' }, '/xdg/hub'],
    [{ XDG_CONFIG_HOME: 'relative', HOME: '/home/me' }, '/home/me/.config/hub'],
    [{ XDG_CONFIG_HOME: '', HOME: '/home/me' }, '/home/me/.config/hub'],
    [{ HOME: '/home/me' }, '/home/me/.config/hub'],
  ])('%j is %s', (env, expected) => {
    expect(configDir(env)).toBe(expected);
  });
});
