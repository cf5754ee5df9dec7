import { Layout } from './layout.js';
import type { MessagePageProps } from './props.js';

/** A page that only says something: forbidden, not found, already set up. */
export function MessagePage({ title, message, link, session }: MessagePageProps) {
  return (
    <Layout title={title} session={session}>
      <h1>{title}</h1>
      <p>{message}</p>
      {link ? (
        <p>
          <a href={link.href}>{link.text}</a>
        </p>
      ) : null}
    </Layout>
  );
}
