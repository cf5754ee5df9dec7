import { Layout, Notice } from './layout.js';
import type { SignInPageProps } from './props.js';

/** E-mail and password; the password is never sent back. */
export function SignInPage({ email, next, message }: SignInPageProps) {
  return (
    <Layout title="Sign in">
      <div class="narrow">
        <h1>Sign in</h1>
        <Notice message={message} />
        <form class="stack" method="post" action="/sign-in">
          {next === undefined ? null : <input type="hidden" name="next" value={next} />}
          <label for="email">E-mail</label>
          <input id="email" name="email" type="email" autocomplete="username" required value={email} />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
          <button type="submit">Sign in</button>
        </form>
      </div>
    </Layout>
  );
}
