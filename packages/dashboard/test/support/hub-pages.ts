// Talking to a real hub as a browser without script does: pages with a cookie, forms from its own origin.
import type { hubOn } from '../../../server/test/support/hub.js';

export type Hub = Awaited<ReturnType<typeof hubOn>>;
export const PASSWORD = 'correct horse battery staple';

/** The setup link the hub printed on its first start. */
export function setupLink(hub: Hub): string {
  const match = /Set up the hub \(one time; also in [^)]*\): (\S+)/.exec(hub.output());
  if (match === null) throw new Error(`no setup link in:\n${hub.output()}`);
  return match[1] as string;
}

export function form(
  hub: Hub,
  path: string,
  fields: Record<string, string | string[]>,
  options: { cookie?: string; origin?: string | null; address?: string } = {},
) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const item of [value].flat()) body.append(name, item);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (options.cookie !== undefined) headers.cookie = options.cookie;
  // The client's address, for a hub that trusts the loopback proxy (HUB_TRUST_PROXY=loopback).
  if (options.address !== undefined) headers['x-forwarded-for'] = options.address;
  const origin = options.origin === undefined ? hub.url : options.origin;
  if (origin !== null) headers.origin = origin;
  return fetch(`${hub.url}${path}`, { method: 'POST', redirect: 'manual', headers, body });
}

export const page = (hub: Hub, path: string, cookie?: string, headers: Record<string, string> = {}) =>
  fetch(`${hub.url}${path}`, {
    redirect: 'manual',
    headers: { ...(cookie === undefined ? {} : { cookie }), ...headers },
  });
export const cookieOf = (response: Response) => (response.headers.get('set-cookie') ?? '').split(';')[0] as string;

/** Sets the hub up from its printed link; the owner's session cookie. */
export async function setUpOwner(hub: Hub, name = 'Ada'): Promise<string> {
  const token = new URL(setupLink(hub)).searchParams.get('token') as string;
  const done = await form(hub, '/setup', {
    token,
    name,
    email: 'ada@example.com',
    password: PASSWORD,
    slug: 'acme',
    organizationName: 'Acme',
  });
  if (done.status !== 303) throw new Error(`setup failed: ${done.status} ${await done.text()}`);
  return cookieOf(done);
}

/** A key made in the dashboard by the signed-in owner: its secret, from the page that shows it once. */
export async function dashboardKey(hub: Hub, cookie: string, name: string, scopes: string[]): Promise<string> {
  const created = await form(hub, '/keys', { name, scopes }, { cookie });
  const secret = /hub_pk_[0-9A-Za-z]{38}/.exec(await created.text())?.[0];
  if (created.status !== 201 || secret === undefined) throw new Error(`key not created: ${created.status}`);
  return secret;
}
