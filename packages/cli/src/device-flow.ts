// The CLI side of the OAuth 2.0 device authorization grant (RFC 8628) with the hub as the
// authorization server: its metadata (RFC 8414), a device code, then polling the token
// endpoint until the person approves or denies in the browser, or the code expires.
import { sleep } from '@hub/daemon';
import { CliError, Interrupted } from './errors.js';
import { exchange, isObject, printable, renderProblem, retryAfterSeconds, type HubAnswer } from './hub-client.js';

/** The hub's public client: no secret, as RFC 8628 expects of a CLI. */
export const CLIENT_ID = 'hub-cli';
export const METADATA_PATH = '/.well-known/oauth-authorization-server';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8628, section 3.2: "If no value is provided, clients MUST use 5 as the default." */
const DEFAULT_INTERVAL_S = 5;
/** RFC 8628, section 3.5: on slow_down, "the interval MUST be increased by 5 seconds". */
const SLOW_DOWN_S = 5;
const CLI_CREDENTIAL = /^hub_cli_[0-9A-Za-z]+$/;

export interface Endpoints {
  deviceAuthorization: string;
  token: string;
}

export interface DeviceCode {
  deviceCode: string;
  /** As the hub shows it (XXXX-XXXX), made printable. */
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string | undefined;
  expiresInS: number;
  intervalS: number;
}

/**
 * The hub's device authorization and token endpoints, from its metadata. Endpoints on another
 * origin are refused: the device code and the credential go to the hub the person named, only.
 */
export async function discoverEndpoints(origin: string, stop: AbortSignal): Promise<Endpoints> {
  const answer = await exchange(
    `${origin}${METADATA_PATH}`,
    { method: 'GET', headers: { accept: 'application/json' } },
    { stop },
  );
  if (answer.status !== 200 || !isObject(answer.body)) {
    throw new CliError(
      `The hub at ${origin} does not offer "hub login" (GET ${METADATA_PATH}: ${renderProblem(answer)}). Log in with an API key instead: hub login --with-token ${origin} < key.txt`,
    );
  }
  const metadata = answer.body;
  const endpoint = (name: string) => {
    const value = metadata[name];
    const url = typeof value === 'string' ? parseUrl(value) : undefined;
    if (url === undefined) throw new CliError(`The hub at ${origin} names no usable ${name} in ${METADATA_PATH}.`);
    if (url.origin !== origin)
      throw new CliError(
        `The hub at ${origin} names its ${name} on another origin (${printable(url.origin)}); hub login sends nothing there.`,
      );
    return url.href;
  };
  return { deviceAuthorization: endpoint('device_authorization_endpoint'), token: endpoint('token_endpoint') };
}

/** Asks the hub for a device code and the user code that goes with it (RFC 8628, section 3.1). */
export async function requestDeviceCode(
  endpoints: Endpoints,
  hostname: string,
  stop: AbortSignal,
): Promise<DeviceCode> {
  const answer = await postForm(endpoints.deviceAuthorization, { client_id: CLIENT_ID, hostname }, stop);
  const body = isObject(answer.body) ? answer.body : {};
  if (answer.status !== 200) throw new CliError(`The hub did not start a login: ${oauthError(answer)}`);
  const {
    device_code: deviceCode,
    user_code: userCode,
    verification_uri: uri,
    verification_uri_complete: complete,
    expires_in: expiresIn,
    interval,
  } = body;
  if (
    typeof deviceCode !== 'string' ||
    typeof userCode !== 'string' ||
    typeof uri !== 'string' ||
    !isHttp(uri) ||
    !isPositive(expiresIn)
  ) {
    throw new CliError(
      `The hub at ${new URL(endpoints.deviceAuthorization).origin} answered the device authorization request with something other than a device code.`,
    );
  }
  return {
    deviceCode,
    userCode: printable(userCode),
    verificationUri: printable(uri),
    verificationUriComplete: typeof complete === 'string' && isHttp(complete) ? printable(complete) : undefined,
    expiresInS: expiresIn,
    intervalS: isPositive(interval) ? interval : DEFAULT_INTERVAL_S,
  };
}

/**
 * Polls the token endpoint every `interval` seconds (5 more after each slow_down) until the hub
 * answers with a CLI credential; every other outcome is a CliError saying what to do, and
 * `stop` ends it with Interrupted. `wait` is the pause between polls (tests shorten it).
 */
export async function pollForCredential(
  endpoints: Endpoints,
  code: DeviceCode,
  stop: AbortSignal,
  wait: (ms: number, signal: AbortSignal) => Promise<boolean> = sleep,
): Promise<string> {
  const expiresAt = Date.now() + code.expiresInS * 1_000;
  let intervalS = code.intervalS;
  // A hub that is briefly unable to answer (503, its database away) or throttling (429) asks for a
  // longer pause with Retry-After: the login waits it out instead of failing.
  let pauseS = intervalS;
  for (;;) {
    // Never past the code's expiry: then the CLI stops on its own, whatever the hub says.
    if (!(await wait(Math.min(pauseS * 1_000, Math.max(0, expiresAt - Date.now())), stop)))
      throw new Interrupted(stop.reason);
    pauseS = intervalS;
    if (Date.now() >= expiresAt) throw expired();
    const answer = await postForm(
      endpoints.token,
      { grant_type: DEVICE_GRANT, device_code: code.deviceCode, client_id: CLIENT_ID },
      stop,
    );
    const error = isObject(answer.body) ? answer.body.error : undefined;
    if (answer.status === 200) return credentialOf(answer);
    if (answer.status === 400 && error === 'authorization_pending') continue;
    if (answer.status === 400 && error === 'slow_down') {
      intervalS += SLOW_DOWN_S;
      pauseS = intervalS;
      continue;
    }
    if (answer.status === 429 || answer.status === 503) {
      pauseS = Math.max(intervalS, retryAfterSeconds(answer.headers) ?? 0);
      continue;
    }
    throw refusal(answer);
  }
}

function credentialOf(answer: HubAnswer): string {
  const token = isObject(answer.body) ? answer.body.access_token : undefined;
  if (typeof token !== 'string' || !CLI_CREDENTIAL.test(token))
    throw new CliError(
      'The hub approved the login but answered with something other than a CLI credential (hub_cli_...); nothing was stored.',
    );
  return token;
}

function refusal(answer: HubAnswer): CliError {
  const error = isObject(answer.body) ? answer.body.error : undefined;
  if (answer.status === 400 && error === 'access_denied')
    return new CliError('The login was denied in the browser; nothing was stored.');
  if (answer.status === 400 && error === 'expired_token') return expired();
  if (answer.status === 400 && error === 'invalid_grant') {
    return new CliError(
      `The hub no longer knows this login (${oauthError(answer)}): the code was already used or has expired. Run "hub login" again.`,
    );
  }
  return new CliError(`The hub refused the login: ${oauthError(answer)}. Nothing was stored.`);
}

function expired(): CliError {
  return new CliError(
    'The code expired before it was approved; nothing was stored. Run "hub login" again for a new code.',
  );
}

/** An RFC 6749 error answer (`error`, `error_description`) in one line; anything else as a problem. */
function oauthError(answer: HubAnswer): string {
  const body = isObject(answer.body) ? answer.body : {};
  if (typeof body.error !== 'string') return renderProblem(answer);
  const description =
    typeof body.error_description === 'string' && body.error_description.trim() !== ''
      ? `: ${body.error_description.trim()}`
      : '';
  return printable(`${body.error}${description} (HTTP ${answer.status})`);
}

/** RFC 6749 and 8628 requests are form-encoded; the answers JSON. */
function postForm(url: string, fields: Record<string, string>, stop: AbortSignal): Promise<HubAnswer> {
  const headers = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  return exchange(url, { method: 'POST', headers, body: new URLSearchParams(fields).toString() }, { stop });
}

function parseUrl(value: string): URL | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

function isHttp(value: string): boolean {
  return parseUrl(value) !== undefined;
}

function isPositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}
