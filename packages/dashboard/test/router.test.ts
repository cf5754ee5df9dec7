import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardRouter, PAGE_POLICY } from '../src/index.js';
import { MemoryStore } from './support/memory-store.js';

// The router over real HTTP with the store port in memory; the PostgreSQL store and the
// browser flows are tested where the server wires them.
let server: Server;
let base: string;
const store = new MemoryStore();
const warnings: string[] = [];

beforeAll(async () => {
  const app = express();
  server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app.use(dashboardRouter({ store, publicUrl: base, log: { warn: (message) => warnings.push(message) } }));
  app.use((_req, res) => void res.status(404).json({ status: 404 }));
  store.addAccount({ name: 'Mia', email: 'mia@example.com', password: 'member password' }, [
    { organizationId: 'org-acme', slug: 'acme', name: 'Acme', role: 'member' },
  ]);
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function get(path: string, cookie?: string, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, { redirect: 'manual', headers: { ...(cookie ? { cookie } : {}), ...headers } });
}
function post(path: string, form: Record<string, string | string[]>, cookie?: string, origin: string | null = base) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) for (const item of [value].flat()) body.append(name, item);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (cookie) headers.cookie = cookie;
  if (origin !== null) headers.origin = origin;
  return fetch(`${base}${path}`, { method: 'POST', redirect: 'manual', headers, body });
}
function cookieOf(response: Response): string {
  return response.headers.get('set-cookie')!.split(';')[0]!;
}

describe('the dashboard router', () => {
  let owner = '';

  it('sends anyone without a session to sign in, even with a bearer key', async () => {
    for (const path of ['/', '/keys', '/keys/key-1/revoke']) {
      const response = await get(path, undefined, { authorization: 'Bearer hub_abcd1234_secret' });
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/sign-in');
    }
  });

  it('sets up the owner and the organization once, signing them in', async () => {
    const form = await get('/setup?token=setup-token');
    expect(form.status).toBe(200);
    expect(form.headers.get('content-security-policy')).toBe(PAGE_POLICY);
    expect(form.headers.get('cache-control')).toBe('no-store');
    const fields = { token: 'setup-token', name: 'Ada', email: 'ada@example.com', password: 'correct horse battery', slug: 'acme', organizationName: 'Acme' };
    const refused = await post('/setup', { ...fields, token: 'wrong' });
    expect(refused.status).toBe(403);
    const page = await refused.text();
    expect(page).toContain('value="ada@example.com"');
    expect(page).not.toContain('correct horse battery');
    const done = await post('/setup', fields);
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/keys');
    expect(done.headers.get('set-cookie')).toMatch(/^hub_session=session-\d+; Path=\/; HttpOnly; SameSite=Lax$/);
    owner = cookieOf(done);
    expect(await (await get('/setup?token=setup-token')).text()).toContain('This hub already has an owner.');
  });

  it('refuses a cross-site POST with 403 before acting on it', async () => {
    for (const origin of ['https://evil.example.com', null]) {
      const response = await post('/keys', { name: 'stolen', scopes: 'runs:read' }, owner, origin);
      expect(response.status).toBe(403);
      expect(response.headers.get('content-security-policy')).toBe(PAGE_POLICY);
    }
    expect(store.keys.size).toBe(0);
    expect(warnings).toContain('dashboard: cross-site form refused');
  });

  it('creates a key, shows its secret once, lists its prefix only, and revokes it', async () => {
    const created = await post('/keys', { name: 'CI', scopes: ['runs:read', 'projects:read'] }, owner);
    expect(created.status).toBe(201);
    const [key] = store.keys.values();
    expect(key?.scopes).toEqual(['runs:read', 'projects:read']);
    const secret = `${key!.prefix}_secret-`;
    expect(await created.text()).toContain(secret);
    const list = await (await get('/keys', owner)).text();
    expect(list).toContain(key!.prefix);
    expect(list).not.toContain(secret);
    expect((await get(`/keys/${key!.id}/revoke`, owner)).status).toBe(200);
    const revoked = await post(`/keys/${key!.id}/revoke`, {}, owner);
    expect(revoked.status).toBe(303);
    expect(key!.status).toBe('revoked');
    expect((await post(`/keys/${key!.id}/revoke`, {}, owner)).status).toBe(404);
  });

  it('re-renders a refused key form with its values', async () => {
    const response = await post('/keys', { name: 'no scopes' }, owner);
    expect(response.status).toBe(422);
    expect(await response.text()).toContain('value="no scopes"');
  });

  it('gives a member the list and 403 on every management request', async () => {
    const signedIn = await post('/sign-in', { email: 'mia@example.com', password: 'member password' });
    expect(signedIn.status).toBe(303);
    const member = cookieOf(signedIn);
    const list = await get('/keys', member);
    expect(list.status).toBe(200);
    expect(await list.text()).not.toContain('action="/keys"');
    expect((await post('/keys', { name: 'x', scopes: 'runs:read' }, member)).status).toBe(403);
    expect((await get('/keys/key-1/revoke', member)).status).toBe(403);
    expect((await post('/keys/key-1/revoke', {}, member)).status).toBe(403);
  });

  it('answers a wrong password generically and a throttled sign-in with a wait', async () => {
    const wrong = await post('/sign-in', { email: 'ada@example.com', password: 'nope' });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('The e-mail address or the password is wrong.');
    const throttled = await post('/sign-in', { email: 'throttled@example.com', password: 'x' });
    expect(throttled.status).toBe(429);
    expect(await throttled.text()).toContain('wait a few minutes');
  });

  it('signs out: the session ends and the cookie is cleared', async () => {
    const response = await post('/sign-out', {}, owner);
    expect(response.status).toBe(303);
    expect(response.headers.get('set-cookie')).toContain('hub_session=; Max-Age=0');
    expect((await get('/keys', owner)).headers.get('location')).toBe('/sign-in');
  });

  it('serves its stylesheet and script with long cache headers, and leaves other paths alone', async () => {
    const css = await get('/assets/dashboard.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('cache-control')).toContain('max-age=31536000');
    expect((await get('/assets/dashboard.js')).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await post('/api/v1/unknown', {}, undefined, 'https://evil.example.com')).status).toBe(404);
  });
});
