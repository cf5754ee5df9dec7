// What binds GitHub's round trips to the session that started them, without storing anything: the
// OAuth `state`, and the offer to link an installation that GitHub listed for the signed-in owner.
// Each is a MAC keyed with the session's secret (which never leaves the hub), with an expiry.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { GitHubAccount } from './ports/github.js';

/** How long a trip through GitHub (installing the app, authorizing) may take. */
export const STATE_LIFETIME_MS = 30 * 60_000;
/** How long the list of installations GitHub gave stays good for linking one of them. */
export const OFFER_LIFETIME_MS = 15 * 60_000;

const mac = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('base64url');

function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The `state` sent to GitHub: when it was made, a nonce, and their MAC under the session's secret. */
export function githubState(sessionSecret: string, now = Date.now()): string {
  const body = `${now.toString(36)}.${randomBytes(12).toString('base64url')}`;
  return `${body}.${mac(sessionSecret, `github-state:${body}`)}`;
}

/** Whether GitHub brought back a state this session made, less than STATE_LIFETIME_MS ago. */
export function validState(sessionSecret: string, state: unknown, now = Date.now()): boolean {
  if (typeof state !== 'string' || state.length > 200) return false;
  const match = /^([0-9a-z]{1,12})\.([\w-]{16})\.([\w-]{43})$/.exec(state);
  if (match === null) return false;
  const made = parseInt(match[1] as string, 36);
  if (!(made <= now && now - made < STATE_LIFETIME_MS)) return false;
  return same(match[3] as string, mac(sessionSecret, `github-state:${match[1]}.${match[2]}`));
}

/** An offer to link one installation GitHub listed: the form's hidden fields, signed for this session and organization. */
export interface LinkOffer {
  installationId: string;
  login: string;
  type: string;
  expires: string;
  proof: string;
}

const offerText = (organizationId: string, offer: Omit<LinkOffer, 'proof'>) =>
  `github-link:${organizationId}:${offer.installationId}:${offer.login}:${offer.type}:${offer.expires}`;

export function linkOffer(
  sessionSecret: string,
  organizationId: string,
  installationId: number,
  account: GitHubAccount | undefined,
  now = Date.now(),
): LinkOffer {
  const offer = {
    installationId: String(installationId),
    login: account?.login ?? '',
    type: account?.type ?? '',
    expires: String(now + OFFER_LIFETIME_MS),
  };
  return { ...offer, proof: mac(sessionSecret, offerText(organizationId, offer)) };
}

/** The installation and account of an offer this session was made for this organization, while it holds; undefined otherwise. */
export function acceptedOffer(
  sessionSecret: string,
  organizationId: string,
  offer: LinkOffer,
  now = Date.now(),
): { installationId: number; account: GitHubAccount | undefined } | undefined {
  if (!/^[1-9][0-9]{0,15}$/.test(offer.installationId) || !/^[0-9]{1,16}$/.test(offer.expires)) return undefined;
  if (Number(offer.expires) <= now) return undefined;
  if (!same(offer.proof, mac(sessionSecret, offerText(organizationId, offer)))) return undefined;
  const account = offer.login === '' || offer.type === '' ? undefined : { login: offer.login, type: offer.type };
  return { installationId: Number(offer.installationId), account };
}
