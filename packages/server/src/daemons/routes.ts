import { digest, generateToken, isWellFormed } from '../auth/secrets.js';
import { clientAddress } from '../auth/throttle.js';
import type { Hub } from '../hub.js';
import { authOf } from '../http/context.js';
import { handle, type Handlers } from '../http/operation.js';
import { HttpProblem } from '../problems/problem.js';

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
      const token = generateToken('et');
      const issued = await hub.daemons.issueToken(organizationId, keyId, digest(token));
      if (issued === undefined) {
        throw new HttpProblem('unauthorized', 'The API key was revoked.', {
          headers: { 'WWW-Authenticate': 'Bearer realm="hub"' },
        });
      }
      res.status(201).json({ token, expiresAt: issued.expiresAt.toISOString() });
    }),
    enrollDaemon: handle(async ({ req, res, body }) => {
      // Each refused token counts against the address (429 past the limit); a valid one is always served.
      const refuse = async () =>
        tokenInvalid(await hub.throttle.count([{ policy: 'enroll-address', subject: clientAddress(req) }]));
      // Any string is a token to the document: a malformed one is refused like an unknown one.
      if (!isWellFormed(body.token, 'et')) throw await refuse();
      const { name, runtimes } = body;
      const publicKey = { kty: 'OKP', crv: 'Ed25519', x: body.publicKey.x };
      const result = await hub.daemons.enroll(digest(body.token), {
        name,
        publicKey,
        runtimes,
        replace: body.replace === true,
      });
      if (!result.ok && result.reason === 'token_invalid') throw await refuse();
      if (!result.ok)
        throw new HttpProblem(
          'daemon_name_taken',
          `An active daemon of the organization is named "${name}"; enroll with replace: true to retire it.`,
        );
      res.status(201).json({ daemonId: result.daemonId, name: result.name });
    }),
  };
}
