import { clientAddress } from '../auth/throttle.js';
import type { Hub } from '../hub.js';
import { authOf } from '../http/context.js';
import { handle, type Handlers } from '../http/operation.js';
import { HttpProblem } from '../problems/problem.js';
import { enrollDaemon, issueEnrollmentToken } from './service.js';

const tokenInvalid = (headers: Record<string, string>) =>
  new HttpProblem(
    'enrollment_token_invalid',
    'The enrollment token is unknown, already used, expired, or its API key was revoked; ask for a new one.',
    { headers },
  );

/** Enrollment tokens (section 4.9) and daemon enrollment (DECISIONS.md, Daemons). */
export function daemonHandlers(hub: Hub): Handlers {
  return {
    issueEnrollmentToken: handle(async ({ req, res }) => {
      const { organizationId, keyId } = authOf(req);
      const issued = await issueEnrollmentToken(hub.sql, organizationId, keyId);
      if (!issued.ok) {
        throw new HttpProblem('unauthorized', 'The API key was revoked.', {
          headers: { 'WWW-Authenticate': 'Bearer realm="hub"' },
        });
      }
      res.status(201).json({ token: issued.token, expiresAt: issued.expiresAt.toISOString() });
    }),
    enrollDaemon: handle(async ({ req, res, body }) => {
      const { name, runtimes } = body;
      // Any string is a token to the document: the service refuses a malformed one like an unknown one.
      const result = await enrollDaemon(hub.sql, {
        token: body.token,
        name,
        publicKey: { kty: 'OKP', crv: 'Ed25519', x: body.publicKey.x },
        runtimes,
        replace: body.replace === true,
      });
      // Each refused token counts against the address (429 past the limit); a valid one is always served.
      if (!result.ok && result.reason === 'token_invalid')
        throw tokenInvalid(await hub.throttle.count([{ policy: 'enroll-address', subject: clientAddress(req) }]));
      if (!result.ok && result.reason === 'not_yours')
        throw new HttpProblem(
          'daemon_name_taken',
          `An active daemon of the organization is named "${name}", enrolled by someone else: only an owner of the organization (or an organization API key) may replace it. Enroll under another name.`,
        );
      if (!result.ok)
        throw new HttpProblem(
          'daemon_name_taken',
          `An active daemon of the organization is named "${name}"; enroll with replace: true to retire it.`,
        );
      res.status(201).json({ daemonId: result.daemonId, name: result.name });
    }),
  };
}
