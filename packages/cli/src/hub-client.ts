// What every command that talks to the hub API shares: which hub, which credential, one request,
// and the hub's problems rendered for people.
import { STATUS_CODES } from 'node:http';
import type { FieldIssue, Problem } from '@hub/schemas';
import type { Io } from './command.js';
import { configDir } from './config-dir.js';
import { activeOrigin, credentialFor, readCredentials } from './credentials.js';
import { CliError, Interrupted } from './errors.js';
import { DEFAULT_ORIGIN, explicitOrigin } from './origin.js';
import type { Unread } from './unread.js';

/** A request without an answer by then is given up as if the hub were unreachable. */
const REQUEST_TIMEOUT_MS = 30_000;
/** Anything a header can carry; a credential with other characters is refused before it is sent (or echoed in fetch's error). */
const TOKEN = /^[\x21-\x7e]+$/;

export interface HubAnswer {
  status: number;
  headers: Headers;
  /** The JSON body, or `undefined` when it is empty or not JSON. */
  body: unknown;
  text: string;
}

export interface Credential {
  token: string;
  source: 'option' | 'env' | 'store';
}

/**
 * The tokens this process read from the credentials file (`hub login`): a 401 for one of them
 * means the login is over (expired, revoked, the person removed), which `hub login` mends; a 401
 * for a key given with --api-key or HUB_API_KEY is left as the hub's answer.
 */
const storedLogins = new Set<string>();

/** A stored login the hub refused (401): its own words first, then the hub's answer. */
export class LoginEnded extends CliError {
  constructor(origin: string, hubSays: string) {
    super(
      `your login expired: run hub login ${origin}\nThe hub refused the credential "hub login" stored for ${origin}: it expired, was revoked, or you are no longer a member of its organization.\n${hubSays}`,
    );
  }
}

/** LoginEnded when `answer` is a 401 for a stored login's token, else undefined. */
export function loginEnded(
  origin: string,
  token: string,
  answer: Pick<HubAnswer, 'status' | 'body' | 'text'> & { headers?: Headers },
): LoginEnded | undefined {
  return answer.status === 401 && storedLogins.has(token) ? new LoginEnded(origin, renderProblem(answer)) : undefined;
}

/** Whether `token` came from the credentials file. */
export function isStoredLogin(token: string): boolean {
  return storedLogins.has(token);
}

/** The explicit argument, else HUB_URL, else the active stored login's origin, else the default hub; normalized. */
export async function resolveOrigin(explicit: string | undefined, io: Io): Promise<string> {
  return explicitOrigin(explicit, io.env) ?? (await activeOrigin(configDir(io.env))) ?? DEFAULT_ORIGIN;
}

/** `--api-key`, else HUB_API_KEY, else the credential stored for exactly `origin`. */
export async function resolveCredential(origin: string, apiKey: string | undefined, io: Io): Promise<Credential> {
  if (apiKey !== undefined) return { token: checkToken(apiKey, 'The --api-key value'), source: 'option' };
  const fromEnv = io.env.HUB_API_KEY;
  if (fromEnv !== undefined && fromEnv.trim() !== '')
    return { token: checkToken(fromEnv, 'HUB_API_KEY'), source: 'env' };
  const dir = configDir(io.env);
  const stored = await credentialFor(dir, origin);
  if (stored !== undefined) {
    const token = checkToken(stored.token, `The credential stored for ${origin}`);
    storedLogins.add(token);
    return { token, source: 'store' };
  }
  const others = Object.keys((await readCredentials(dir)).credentials);
  const hint =
    others.length === 0
      ? ''
      : ` Credentials are stored for ${others.join(', ')} only; a stored credential is used for its exact origin alone.`;
  throw new CliError(
    `No credential for ${origin}: run "hub login ${origin}", or set HUB_API_KEY to an organization API key (hub_pk_...) or CLI credential (hub_cli_...), or pass --api-key KEY.${hint}`,
    2,
  );
}

/** Describes where a credential came from, for messages (never the credential itself). */
export function describeSource(source: Credential['source']): string {
  return { option: 'the --api-key option', env: 'HUB_API_KEY', store: 'the stored credential' }[source];
}

/**
 * One request to the hub API with a bearer credential; `body` is sent byte for byte as JSON.
 * Any status is an answer (the caller decides), but a 401 for a stored login, which is LoginEnded;
 * no answer is a CliError. Redirects are not followed: the credential goes to the origin it was
 * resolved for and nowhere else.
 */
export async function hubRequest(
  origin: string,
  token: string,
  method: string,
  path: string,
  body?: string,
  stop?: AbortSignal,
): Promise<HubAnswer> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    accept: 'application/json, application/problem+json',
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const answer = await exchange(`${origin}${path}`, { method, headers, body }, { secret: token, stop });
  const ended = loginEnded(origin, token, answer);
  if (ended !== undefined) throw ended;
  return answer;
}

/**
 * One HTTP exchange with a hub, without following redirects. Any status is an answer; no answer
 * is a CliError naming the hub (with `secret` blanked out of the reason), or Interrupted when
 * `stop` aborted it.
 */
export async function exchange(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
  options: { secret?: string; stop?: AbortSignal } = {},
): Promise<HubAnswer> {
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  const signal = options.stop === undefined ? timeout : AbortSignal.any([timeout, options.stop]);
  try {
    const response = await fetch(url, { ...init, redirect: 'manual', signal });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: parseJson(text), text };
  } catch (error) {
    if (options.stop?.aborted) throw new Interrupted(options.stop.reason);
    const reason = timeout.aborted ? `no answer within ${REQUEST_TIMEOUT_MS / 1_000} s` : networkReason(error);
    const secret = options.secret;
    throw new CliError(
      `could not reach the hub at ${new URL(url).origin}: ${secret === undefined ? reason : reason.split(secret).join('<credential>')}`,
    );
  }
}

/** The hub's own 413 is a problem naming the operation's limit; any other came from in front of it. */
const PROXY_413 =
  "The hub's own 413 names its limit; this one came from a proxy in front of it, which accepts less (nginx: client_max_body_size).";

/**
 * A failed answer for people: its status, title and detail on the first line, then each field
 * issue on a line of its own as `file:line:column: code message` (the form editors and CI
 * annotate), then the request id. No trailing newline.
 */
export function renderProblem(
  answer: Pick<HubAnswer, 'status' | 'body' | 'text'> & { headers?: Headers },
  context: { file?: string } = {},
): string {
  const status = `HTTP ${answer.status}${STATUS_CODES[answer.status] === undefined ? '' : ` ${STATUS_CODES[answer.status]}`}`;
  if (!isObject(answer.body)) {
    const location = answer.headers?.get('location');
    if (answer.status >= 300 && answer.status < 400 && location)
      return `The hub answered ${status}, a redirect to ${printable(location)}: give the origin it redirects to.`;
    const text = printable(answer.text.trim()).slice(0, 300);
    return `The hub answered ${status}${text === '' ? ' with an empty body' : `: ${text}`}${answer.status === 413 ? `\n${PROXY_413}` : ''}`;
  }
  // A `Problem`, or some other JSON error (`error`, `message`) from a proxy or an older hub.
  const body: Unread<Problem> & { error?: unknown; message?: unknown } = answer.body;
  const title = text(body.title);
  const detail = text(body.detail);
  if (title === undefined && detail === undefined) {
    const error = text(body.error) ?? text(body.code) ?? text(body.message);
    return `The hub answered ${status}: ${error ?? printable(answer.text.trim()).slice(0, 300)}`;
  }
  const head = [title, detail].filter((part) => part !== undefined).join(': ');
  const lines = [`${head} (${status}${text(body.code) === undefined ? '' : `, ${text(body.code)}`})`];
  if (Array.isArray(body.issues))
    lines.push(...body.issues.filter(isObject).map((issue) => renderIssue(issue, context.file)));
  const retryAfter = retryAfterSeconds(answer.headers);
  if (retryAfter !== undefined) lines.push(`Try again in ${retryAfter} s.`);
  const requestId = text(body.requestId);
  if (requestId !== undefined) lines.push(`Request id: ${requestId}`);
  return lines.join('\n');
}

/** Retry-After in seconds (RFC 9110, 10.2.3), when the answer carries it as a number of seconds. */
export function retryAfterSeconds(headers: Headers | undefined): number | undefined {
  const value = headers?.get('retry-after')?.trim();
  return value !== undefined && /^[0-9]{1,9}$/.test(value) ? Number(value) : undefined;
}

function renderIssue(issue: Unread<FieldIssue>, contextFile: string | undefined): string {
  const file = text(issue.file) ?? contextFile ?? '<request>';
  const code = text(issue.code) ?? 'issue';
  const message = text(issue.message) ?? '';
  const { line, column } = issue;
  if (isPosition(line) && isPosition(column)) return `${file}:${line}:${column}: ${code} ${message}`;
  if (isPosition(line)) return `${file}:${line}: ${code} ${message}`;
  const pointer = typeof issue.pointer === 'string' ? issue.pointer : undefined;
  return `${file}: ${code} ${message}${pointer === undefined ? '' : ` (at ${pointer === '' ? 'the document root' : printable(pointer)})`}`;
}

function checkToken(value: string, what: string): string {
  const token = value.trim();
  if (token === '') throw new CliError(`${what} is empty.`, 2);
  if (!TOKEN.test(token)) throw new CliError(`${what} contains spaces or characters that no credential has.`, 2);
  if (token.startsWith('hub_et_'))
    throw new CliError(
      `${what} is an enrollment token (hub_et_...), which only enrolls a daemon: give an API key (hub_pk_...) or a CLI credential (hub_cli_...).`,
      2,
    );
  return token;
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** fetch's "fetch failed" hides the reason in `cause`: ECONNREFUSED, ENOTFOUND, a reset, a certificate. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPosition(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? printable(value) : undefined;
}

/** Text from the hub, made safe for a terminal: control characters (escape sequences, newlines) become spaces. */
export function printable(value: string): string {
  return value.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}
