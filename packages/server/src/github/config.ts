import { readFileSync } from 'node:fs';

/** The hub's GitHub App (DECISIONS.md, GitHub): unset HUB_GITHUB_APP_ID means GitHub is off. */
export interface GitHubConfig {
  /** HUB_GITHUB_APP_ID: the app's id, the JWT's `iss`. */
  appId: string;
  /** HUB_GITHUB_APP_SLUG: the mention is `@<slug>`; the app's own comments are `<slug>[bot]`'s. */
  slug: string;
  /** The PEM of HUB_GITHUB_PRIVATE_KEY_FILE. */
  privateKey: string;
  /** HUB_GITHUB_WEBHOOK_SECRET. */
  webhookSecret: string;
  /** HUB_GITHUB_API_URL, without a trailing slash: `https://api.github.com`, or `https://HOST/api/v3` for GitHub Enterprise Server. */
  apiUrl: string;
  /** Where people sign in: `https://github.com`, or the Enterprise Server's host; HUB_GITHUB_URL, else derived from the API's URL. */
  webUrl: string;
  /** HUB_GITHUB_CLIENT_ID, HUB_GITHUB_CLIENT_SECRET: the app's OAuth credentials, for an owner's proof in the dashboard; unset, only the operator API links installations. */
  clientId?: string;
  clientSecret?: string;
}

export const GITHUB_API_URL = 'https://api.github.com';

/** Reads the GitHub variables; a partial configuration stops the hub with what is missing. */
export function readGitHubConfig(env: NodeJS.ProcessEnv): GitHubConfig | undefined {
  const set = (name: string) => (env[name] ?? '').trim() || undefined;
  const appId = set('HUB_GITHUB_APP_ID');
  if (appId === undefined) {
    const stray = ['HUB_GITHUB_APP_SLUG', 'HUB_GITHUB_PRIVATE_KEY_FILE', 'HUB_GITHUB_WEBHOOK_SECRET'].filter(set);
    if (stray.length > 0)
      throw new Error(`${stray.join(', ')} set without HUB_GITHUB_APP_ID: set the app's id too, or none of them`);
    return undefined;
  }
  if (!/^\d{1,18}$/.test(appId)) throw new Error(`HUB_GITHUB_APP_ID must be the app's numeric id, not "${appId}"`);
  const missing = ['HUB_GITHUB_APP_SLUG', 'HUB_GITHUB_PRIVATE_KEY_FILE', 'HUB_GITHUB_WEBHOOK_SECRET'].filter(
    (name) => set(name) === undefined,
  );
  if (missing.length > 0) throw new Error(`HUB_GITHUB_APP_ID is set, so ${missing.join(', ')} must be set too`);
  const slug = set('HUB_GITHUB_APP_SLUG')!;
  if (!/^[a-z0-9][a-z0-9-]{0,33}$/i.test(slug))
    throw new Error(`HUB_GITHUB_APP_SLUG must be the app's slug (as in github.com/apps/<slug>), not "${slug}"`);
  const keyFile = set('HUB_GITHUB_PRIVATE_KEY_FILE')!;
  let privateKey: string;
  try {
    privateKey = readFileSync(keyFile, 'utf8');
  } catch (error) {
    throw new Error(`HUB_GITHUB_PRIVATE_KEY_FILE: cannot read ${keyFile}: ${(error as Error).message}`);
  }
  if (!/-----BEGIN (RSA )?PRIVATE KEY-----/.test(privateKey))
    throw new Error(
      `HUB_GITHUB_PRIVATE_KEY_FILE: ${keyFile} is not a PEM private key (download one from the app's settings)`,
    );
  const apiUrl = url(set('HUB_GITHUB_API_URL') ?? GITHUB_API_URL, 'HUB_GITHUB_API_URL');
  const webUrl = url(set('HUB_GITHUB_URL') ?? webUrlOf(apiUrl), 'HUB_GITHUB_URL');
  const clientId = set('HUB_GITHUB_CLIENT_ID');
  const clientSecret = set('HUB_GITHUB_CLIENT_SECRET');
  if ((clientId === undefined) !== (clientSecret === undefined))
    throw new Error('HUB_GITHUB_CLIENT_ID and HUB_GITHUB_CLIENT_SECRET go together: set both, or neither');
  return {
    appId,
    slug,
    privateKey,
    webhookSecret: set('HUB_GITHUB_WEBHOOK_SECRET')!,
    apiUrl,
    webUrl,
    ...(clientId === undefined ? {} : { clientId, clientSecret }),
  };
}

/** github.com's API lives on its own host; an Enterprise Server's under `/api/v3` of the web host. */
export function webUrlOf(apiUrl: string): string {
  if (apiUrl === GITHUB_API_URL) return 'https://github.com';
  return apiUrl.replace(/\/api\/v3$/, '');
}

function url(raw: string, name: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new Error(`${name} must be a URL such as https://github.example.com/api/v3, not "${raw}"`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new Error(`${name} must be an http(s) URL, not "${raw}"`);
  return raw.replace(/\/+$/, '');
}
