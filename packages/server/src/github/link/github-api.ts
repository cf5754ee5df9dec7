import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/core';
import type { GitHubConfig } from '../config.js';
import type { InstallationAccount } from './sql.js';

/** No page of the dashboard, and no link by the operator API, waits longer than this for GitHub. */
const GITHUB_TIMEOUT_MS = 10_000;
/** The user's installations are read 100 a page, at most this many pages. */
const MAX_PAGES = 10;

const API_VERSION = { 'x-github-api-version': '2022-11-28' };

interface InstallationJson {
  id: number;
  target_type?: string;
  account?: { login?: string; slug?: string; name?: string; type?: string } | null;
}

/** The account an installation is on, as GitHub's installation object names it (an enterprise has a slug, no login). */
function accountOf(installation: InstallationJson): InstallationAccount | undefined {
  const login = installation.account?.login ?? installation.account?.slug ?? installation.account?.name;
  const type = installation.target_type ?? installation.account?.type;
  return login === undefined || type === undefined ? undefined : { login, type };
}

/**
 * The account of one installation, asked with the app's JWT (`GET /app/installations/{id}`); undefined
 * when GitHub does not answer, or answers otherwise than with the installation: linking goes on without it.
 */
export async function installationAccount(
  config: GitHubConfig,
  installationId: number,
): Promise<InstallationAccount | undefined> {
  const octokit = new Octokit({
    baseUrl: config.apiUrl,
    authStrategy: createAppAuth,
    auth: { appId: config.appId, privateKey: config.privateKey },
  });
  const { data } = await octokit.request('GET /app/installations/{installation_id}', {
    installation_id: installationId,
    headers: API_VERSION,
    request: { signal: AbortSignal.timeout(GITHUB_TIMEOUT_MS) },
  });
  return accountOf(data as InstallationJson);
}

/** An installation a GitHub user can reach: one whose account they administer (or were granted). */
export interface UserInstallation {
  installationId: number;
  account: InstallationAccount | undefined;
}

export type UserInstallations =
  | { ok: true; installations: UserInstallation[] }
  | { ok: false; reason: 'code_refused' | 'github_unreachable'; message: string };

/**
 * The proof of an owner in the dashboard: the code GitHub gave the browser is exchanged for a user
 * token (the app's OAuth credentials), and GitHub lists the installations of the app that the user
 * can reach (`GET /user/installations`). The token is used for this alone, and not kept.
 */
export async function userInstallations(
  config: GitHubConfig,
  code: string,
  redirectUri: string,
): Promise<UserInstallations> {
  if (config.clientId === undefined || config.clientSecret === undefined)
    return { ok: false, reason: 'code_refused', message: 'The hub has no OAuth credentials of its GitHub App.' };
  let token: string;
  try {
    const answer = await fetch(`${config.webUrl}/login/oauth/access_token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: config.clientId,
        client_secret: config.clientSecret,
        code,
        redirect_uri: redirectUri,
      }),
      signal: AbortSignal.timeout(GITHUB_TIMEOUT_MS),
    });
    const body = (await answer.json().catch(() => ({}))) as { access_token?: unknown; error_description?: unknown };
    if (!answer.ok || typeof body.access_token !== 'string' || body.access_token === '')
      return {
        ok: false,
        reason: 'code_refused',
        message:
          typeof body.error_description === 'string' ? body.error_description : `GitHub answered ${answer.status}.`,
      };
    token = body.access_token;
  } catch (error) {
    return { ok: false, reason: 'github_unreachable', message: (error as Error).message };
  }
  try {
    const octokit = new Octokit({ baseUrl: config.apiUrl, auth: token });
    const installations: UserInstallation[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const { data } = await octokit.request('GET /user/installations', {
        per_page: 100,
        page,
        headers: API_VERSION,
        request: { signal: AbortSignal.timeout(GITHUB_TIMEOUT_MS) },
      });
      const listed = (data as { installations: InstallationJson[] }).installations;
      installations.push(
        ...listed.map((installation) => ({ installationId: installation.id, account: accountOf(installation) })),
      );
      if (listed.length < 100) break;
    }
    return { ok: true, installations };
  } catch (error) {
    return { ok: false, reason: 'github_unreachable', message: (error as Error).message };
  }
}
