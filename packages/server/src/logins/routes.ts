// `hub login`'s side of the hub: the OAuth 2.0 device authorization grant (RFC 8628), advertised
// by authorization server metadata (RFC 8414), with revocation (RFC 7009). The CLI is the one
// public client, `hub-cli`. Requests are forms, answers JSON, errors OAuth errors (not problems):
// OAuth clients read `error`. The use cases are device-flow.ts's and credentials.ts's.
import type { Response } from 'express';
import { CLI_SCOPES } from '../auth/api-key.js';
import { clientAddress } from '../auth/throttle.js';
import type { Hub } from '../hub.js';
import { handle, type Handlers } from '../http/operation.js';
import { revokeCliToken } from './credentials.js';
import {
  CLI_CLIENT_ID,
  DEFAULT_DEVICE_LOGIN,
  pollDeviceAuthorization,
  startDeviceAuthorization,
} from './device-flow.js';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** Where people approve: a dashboard page. */
export const VERIFICATION_PATH = '/device';

type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'unsupported_grant_type'
  | 'unsupported_token_type'
  | 'authorization_pending'
  | 'slow_down'
  | 'access_denied'
  | 'expired_token';

const DESCRIPTIONS: Partial<Record<OAuthErrorCode, string>> = {
  authorization_pending: 'The person has not approved or denied the request yet.',
  slow_down: 'Polled sooner than the interval allows; the interval grew by 5 seconds.',
  access_denied: 'The request was denied.',
  expired_token: 'The device code expired; start again.',
  invalid_grant: 'Unknown device code, or one already redeemed.',
};

/** A form parameter: absent and empty are the same (RFC 6749, section 3.2); a repeated one is an error. */
type Form = Record<string, string | string[] | undefined>;

class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description?: string,
  ) {
    super(error);
  }
}

export function oauthHandlers(hub: Hub): Handlers {
  const timing = hub.options.deviceLogin ?? DEFAULT_DEVICE_LOGIN;
  const base = hub.options.publicUrl ?? hub.options.problemBase;
  return {
    getAuthorizationServerMetadata: handle(({ res }) => {
      res.json({
        issuer: base,
        device_authorization_endpoint: `${base}/oauth/device_authorization`,
        token_endpoint: `${base}/oauth/token`,
        revocation_endpoint: `${base}/oauth/revoke`,
        grant_types_supported: [DEVICE_CODE_GRANT],
        response_types_supported: [],
        token_endpoint_auth_methods_supported: ['none'],
        revocation_endpoint_auth_methods_supported: ['none'],
        scopes_supported: CLI_SCOPES,
      });
    }),

    requestDeviceAuthorization: handle(({ req, res }) =>
      answer(res, async () => {
        const form = formOf(req.body);
        checkClient(form);
        const scopes = scopesOf(parameter(form, 'scope'));
        const host = hostOf(parameter(form, 'hostname'));
        // Every start stores a request, unauthenticated: each counts against the address (429 past the limit).
        res.set(await hub.throttle.count([{ policy: 'device-address', subject: clientAddress(req) }]));
        const started = await startDeviceAuthorization(hub.sql, { scopes, host }, timing);
        return {
          device_code: started.deviceCode,
          user_code: started.userCode,
          verification_uri: `${base}${VERIFICATION_PATH}`,
          verification_uri_complete: `${base}${VERIFICATION_PATH}?user_code=${started.userCode}`,
          expires_in: timing.lifetimeSeconds,
          interval: timing.intervalSeconds,
        };
      }),
    ),

    requestToken: handle(({ req, res }) =>
      answer(res, async () => {
        const form = formOf(req.body);
        const grantType = parameter(form, 'grant_type');
        if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required.');
        if (grantType !== DEVICE_CODE_GRANT)
          throw new OAuthError('unsupported_grant_type', `The hub supports ${DEVICE_CODE_GRANT} only.`);
        checkClient(form);
        const deviceCode = parameter(form, 'device_code');
        if (deviceCode === undefined) throw new OAuthError('invalid_request', 'device_code is required.');
        const outcome = await pollDeviceAuthorization(hub.sql, deviceCode);
        // An unknown device code is a failed credential: counted, and 429 past the limit.
        if (outcome.kind === 'invalid_grant') res.set(await hub.throttle.failedAuthentication(req));
        if (outcome.kind !== 'issued') throw new OAuthError(outcome.kind, DESCRIPTIONS[outcome.kind]);
        return { access_token: outcome.token, token_type: 'Bearer', scope: outcome.scopes.join(' ') };
      }),
    ),

    revokeToken: handle(({ req, res }) =>
      answer(res, async () => {
        const form = formOf(req.body);
        checkClient(form);
        const token = parameter(form, 'token');
        if (token === undefined) throw new OAuthError('invalid_request', 'token is required.');
        parameter(form, 'token_type_hint'); // Only checked for repetition: the prefix tells the kind.
        // An unknown token is revoked already, as far as its holder can tell (RFC 7009, section 2.2).
        if ((await revokeCliToken(hub.sql, token)) === 'api_key')
          throw new OAuthError(
            'unsupported_token_type',
            'API keys are revoked by the organization owners in the dashboard, not here.',
          );
        return undefined;
      }),
    ),
  };
}

/** Runs an OAuth step: its result as JSON (or an empty 200), an OAuthError as a 400; never cached. */
async function answer(res: Response, step: () => Promise<object | undefined>): Promise<void> {
  res.set('Cache-Control', 'no-store');
  res.set('Pragma', 'no-cache');
  let result: object | undefined;
  try {
    result = await step();
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    res
      .status(400)
      .json(
        error.description === undefined
          ? { error: error.error }
          : { error: error.error, error_description: error.description },
      );
    return;
  }
  if (result === undefined) res.status(200).end();
  else res.json(result);
}

function formOf(body: unknown): Form {
  if (typeof body !== 'object' || body === null)
    throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded.');
  return body as Form;
}

/** A parameter's value; `undefined` when absent or empty. */
function parameter(form: Form, name: string): string | undefined {
  const value = Object.hasOwn(form, name) ? form[name] : undefined;
  if (Array.isArray(value)) throw new OAuthError('invalid_request', `${name} is given more than once.`);
  return value === undefined || value === '' ? undefined : value;
}

function checkClient(form: Form): void {
  const clientId = parameter(form, 'client_id');
  if (clientId === undefined) throw new OAuthError('invalid_request', 'client_id is required.');
  if (clientId !== CLI_CLIENT_ID) throw new OAuthError('invalid_client', `The only client is ${CLI_CLIENT_ID}.`);
}

/** The requested scopes (all of the CLI's when none), each one of the CLI's, in the CLI's order. */
function scopesOf(scope: string | undefined): string[] {
  if (scope === undefined) return [...CLI_SCOPES];
  const asked = new Set(scope.split(' ').filter((item) => item !== ''));
  const unknown = [...asked].filter((item) => !(CLI_SCOPES as readonly string[]).includes(item));
  if (unknown.length > 0)
    throw new OAuthError(
      'invalid_scope',
      `Unknown scope ${unknown[0]?.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '?').slice(0, 64)}; the CLI's are ${CLI_SCOPES.join(' ')}.`,
    );
  if (asked.size === 0) return [...CLI_SCOPES];
  return CLI_SCOPES.filter((item) => asked.has(item));
}

/** The host name the CLI sent, shown to the person approving: printable, trimmed, at most 255 characters. */
function hostOf(hostname: string | undefined): string | null {
  if (hostname === undefined) return null;
  if (/[\u0000-\u001f\u007f-\u009f\ud800-\udfff]/.test(hostname))
    throw new OAuthError('invalid_request', 'hostname holds control characters.');
  const host = hostname.trim();
  if (host.length > 255) throw new OAuthError('invalid_request', 'hostname is longer than 255 characters.');
  return host === '' ? null : host;
}
