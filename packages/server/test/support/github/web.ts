// GitHub's web side of a GitHub App: the user's authorization (OAuth web flow) and the install page
// that, with "Request user authorization (OAuth) during installation", sends the user to the app's
// setup URL with the installation's id and an OAuth code.
import { randomBytes } from 'node:crypto';
import { Refusal, type RawAnswer } from './credentials.js';
import { key, type World } from './state.js';

export interface WebApp {
  slug: string;
  clientId: string;
  clientSecret: string;
  /** Where the install page sends the user back; unset: the install page has nowhere to go. */
  setupUrl: string | undefined;
  /** The app's callback URLs; a redirect_uri must start with one of them. Unset: any is accepted. */
  callbackUrls: string[] | undefined;
  /** Who is signed in to GitHub in the "browser" and approves: set by authorizeUser. */
  signedIn: string | undefined;
}

export type WebAnswer = RawAnswer;

const CODE_LIFETIME_MS = 10 * 60 * 1000;
const USER_TOKEN_LIFETIME_SECONDS = 8 * 3600;

export const WEB_PATHS = ['/login/oauth/authorize', '/login/oauth/access_token'];
/** Where the install page is: /apps/… on github.com, /github-apps/… on GitHub Enterprise Server. */
export const installPath = (slug: string, enterprise: boolean) =>
  `/${enterprise ? 'github-apps' : 'apps'}/${slug}/installations/new`;

function redirect(target: string, query: Record<string, string | undefined>): WebAnswer {
  const url = new URL(target);
  for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, value);
  return { status: 302, headers: { location: url.toString() } };
}

function newCode(world: World, login: string): string {
  const code = randomBytes(10).toString('hex');
  world.codes.set(code, { login, expiresAt: Date.now() + CODE_LIFETIME_MS });
  return code;
}

function signedIn(app: WebApp): string {
  if (app.signedIn === undefined) {
    const page = { status: 200, headers: { 'content-type': 'text/html' }, body: '<h1>Sign in to GitHub</h1>' };
    throw new Refusal(200, 'Sign in to GitHub', 'nobody is signed in: call authorizeUser(login) first', page);
  }
  return app.signedIn;
}

/** GET /login/oauth/authorize */
export function authorize(world: World, app: WebApp, query: URLSearchParams): WebAnswer {
  if (query.get('client_id') !== app.clientId) {
    throw new Refusal(404, 'Not Found', `authorize with client_id ${String(query.get('client_id'))}`);
  }
  const callback = query.get('redirect_uri') ?? app.callbackUrls?.[0];
  if (callback === undefined) throw new Refusal(404, 'Not Found', 'no redirect_uri and no callback URL');
  if (app.callbackUrls !== undefined && !app.callbackUrls.some((url) => callback.startsWith(url))) {
    const error_description = 'The redirect_uri MUST match the registered callback URL for this application.';
    const back = redirect(app.callbackUrls[0]!, {
      error: 'redirect_uri_mismatch',
      error_description,
      state: query.get('state') ?? undefined,
    });
    throw new Refusal(302, error_description, `redirect_uri ${callback} is none of the app's callback URLs`, back);
  }
  const code = newCode(world, signedIn(app));
  return redirect(callback, { code, state: query.get('state') ?? undefined });
}

/** GET /apps/{slug}/installations/new: the user installs the newest installation they administer. */
export function install(world: World, app: WebApp, query: URLSearchParams): WebAnswer {
  const login = signedIn(app);
  if (app.setupUrl === undefined) throw new Refusal(404, 'Not Found', 'the app has no setup URL');
  const installation = [...world.installations.values()]
    .reverse()
    .find((i) => i.users?.some((user) => key(user) === key(login)));
  if (installation === undefined) throw new Refusal(404, 'Not Found', `${login} administers no installation`);
  return redirect(app.setupUrl, {
    installation_id: String(installation.id),
    setup_action: 'install',
    code: newCode(world, login),
    state: query.get('state') ?? undefined,
  });
}

/** POST /login/oauth/access_token: errors are answered 200, as GitHub does, with an `error` field. */
export function exchange(world: World, app: WebApp, form: Record<string, string>, json: boolean): WebAnswer {
  const answer = (fields: Record<string, string | number>): WebAnswer =>
    json
      ? { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(fields) }
      : {
          status: 200,
          headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
          body: new URLSearchParams(
            Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)]),
          ).toString(),
        };
  const refuse = (error: string, description: string): never => {
    const fields = { error, error_description: description, error_uri: 'https://docs.github.com/apps' };
    throw new Refusal(200, description, `token exchange: ${error}`, answer(fields));
  };
  if (form.client_id !== app.clientId || form.client_secret !== app.clientSecret) {
    refuse('incorrect_client_credentials', 'The client_id and/or client_secret passed are incorrect.');
  }
  const code = world.codes.get(form.code ?? '');
  world.codes.delete(form.code ?? '');
  if (code === undefined || code.expiresAt < Date.now()) {
    refuse('bad_verification_code', 'The code passed is incorrect or expired.');
  }
  const issued = world.issueToken({ kind: 'user', login: code!.login }, USER_TOKEN_LIFETIME_SECONDS, 'ghu');
  return answer({
    access_token: issued.token,
    expires_in: USER_TOKEN_LIFETIME_SECONDS,
    refresh_token: `ghr_${randomBytes(30).toString('base64url').slice(0, 76)}`,
    refresh_token_expires_in: 15_897_600,
    token_type: 'bearer',
    scope: '',
  });
}
