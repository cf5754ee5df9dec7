// A real hub set up as a person would: the printed setup link, then an API key made in the dashboard.
import { hashPassword } from '../../../server/src/people/passwords.js';
import { call } from '../../../server/test/support/client.js';
import { cookieOf, form, page, PASSWORD, setupLink, type Hub } from './hub-pages.js';

export { cookieOf, form, page, PASSWORD, type Hub };

/** The owner (organization `acme`, project `app`), a member, and an API key with every scope, made through the hub's own front doors. */
export async function arrange(hub: Hub): Promise<{ owner: string; member: string; key: string }> {
  const link = setupLink(hub);
  const token = new URL(link).searchParams.get('token') as string;
  const done = await form(hub, '/setup', {
    token,
    name: 'Ada',
    email: 'ada@example.com',
    password: PASSWORD,
    slug: 'acme',
    organizationName: 'Acme',
  });
  if (done.status !== 303) throw new Error(`setup: ${done.status} ${await done.text()}`);
  const owner = cookieOf(done);
  const scopes = ['projects:read', 'configuration:install', 'daemons:enroll', 'runs:dispatch', 'runs:read'];
  const created = await form(hub, '/keys', { name: 'ops', scopes }, { cookie: owner });
  const key = /hub_pk_[0-9A-Za-z]{38}/.exec(await created.text())?.[0];
  if (key === undefined) throw new Error(`no key: ${created.status}`);
  const project = await call(hub, 'POST', '/api/admin/v1/organizations/acme/projects', {
    token: hub.adminToken,
    body: { slug: 'app', name: 'App' },
  });
  if (project.status !== 201) throw new Error(`project: ${project.status} ${project.text}`);
  const [org] = await hub.sql`select id from organizations where slug = 'acme'`;
  const [account] =
    await hub.sql`insert into accounts (email, name, password_hash) values ('mia@example.com', 'Mia', ${await hashPassword(PASSWORD)}) returning id`;
  await hub.sql`insert into organization_members (organization_id, account_id, role) values (${org?.id as string}, ${account?.id as string}, 'member')`;
  const signedIn = await form(hub, '/sign-in', { email: 'mia@example.com', password: PASSWORD });
  if (signedIn.status !== 303) throw new Error(`member sign-in: ${signedIn.status}`);
  return { owner, member: cookieOf(signedIn), key };
}

/** A configuration whose one trigger runs on the daemon `dev-box`; the actor may carry markup. */
export const CONFIGURATION = `
environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: /tmp/work }
triggers:
  - name: fix-tests
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [dev-lead, "<script>alert(4)</script>"] }
    steps:
      - { id: fix, environment: laptop, agent: { provider: claude }, prompt: [ { text: "Fix {{ prompt }}" } ] }
`;
