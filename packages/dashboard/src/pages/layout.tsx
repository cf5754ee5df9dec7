import type { ComponentChildren } from 'preact';
import type { SessionView } from '../store.js';

export const STYLESHEET = '/assets/dashboard.css';
export const SCRIPT = '/assets/dashboard.js';

/** The frame of every page: head, the hub's band (with the account's menu when signed in), `main`. */
export function Layout({
  title,
  session,
  section,
  children,
}: {
  title: string;
  session?: SessionView | undefined;
  section?: string | undefined;
  children: ComponentChildren;
}) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Hub`}</title>
        {/* No icon to fetch: the browser would ask for /favicon.ico and get a 404. */}
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={STYLESHEET} />
        <script src={SCRIPT} defer />
      </head>
      <body>
        <header class="band">
          <div class="site">
            <a class="brand" href="/">
              Hub
            </a>
            {session?.current ? <SectionNav current={section} /> : null}
            {session ? <AccountMenu session={session} /> : null}
          </div>
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}

/** The dashboard's sections; `section` (a path) marks the current one. */
const SECTIONS = [
  { href: '/keys', text: 'API keys' },
  { href: '/projects', text: 'Projects' },
  { href: '/daemons', text: 'Daemons' },
  { href: '/runs', text: 'Runs' },
  { href: '/members', text: 'Members' },
  { href: '/audit', text: 'Audit' },
  { href: '/webhooks', text: 'Webhooks' },
  { href: '/settings/github', text: 'GitHub' },
];

function SectionNav({ current }: { current: string | undefined }) {
  return (
    <nav class="sections" aria-label="Sections">
      {SECTIONS.map((item) => (
        <a key={item.href} href={item.href} aria-current={item.href === current ? 'page' : undefined}>
          {item.text}
        </a>
      ))}
    </nav>
  );
}

function AccountMenu({ session }: { session: SessionView }) {
  const { account, organizations, current } = session;
  return (
    <div class="menu">
      {organizations.length > 1 ? (
        <form class="inline" method="post" action="/organization">
          <label class="visually-hidden" for="organization">
            Organization
          </label>
          <select id="organization" name="slug">
            {organizations.map((organization) => (
              <option key={organization.slug} value={organization.slug} selected={organization.slug === current?.slug}>
                {organization.name}
              </option>
            ))}
          </select>
          <button type="submit" class="secondary">
            Switch
          </button>
        </form>
      ) : current ? (
        <span class="organization">{current.name}</span>
      ) : null}
      <a class="account" href="/account">
        {account.name}
      </a>
      <form class="inline" method="post" action="/sign-out">
        <button type="submit" class="secondary">
          Sign out
        </button>
      </form>
    </div>
  );
}

/** A message above a form: an error (`alert`) or a notice. */
export function Notice({ message, kind = 'error' }: { message: string | undefined; kind?: 'error' | 'notice' }) {
  if (!message) return null;
  return (
    <p class={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {message}
    </p>
  );
}
