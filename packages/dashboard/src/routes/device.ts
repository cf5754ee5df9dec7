import type { Response, Router } from 'express';
import { field, userCodeOf } from '../forms.js';
import { clientAddress, formBody, refuseCrossSite, requireSession, sendMessage, sendPage } from '../http.js';
import type { DashboardOptions } from '../http.js';
import { deviceCodePage, deviceConfirmPage } from '../pages/index.js';
import type { DeviceDecision } from '../ports/cli-logins.js';
import type { SessionView } from '../store.js';

const UNKNOWN = 'This code is unknown, has expired or was used already. Run hub login again for a new code.';
const THROTTLED = 'Too many unknown codes: wait a few minutes, then type the code again.';

/** Where signing in comes back to: the page, with the code when it was one. */
const devicePath = (code: string | undefined) => (code === undefined ? '/device' : `/device?user_code=${code}`);

/**
 * The verification page of `hub login` (RFC 8628, section 3.3): the person signs in, types or
 * confirms the code, sees what asks (client, host name, scopes), and approves it for one of their
 * organizations or denies it.
 */
export function deviceRoutes(router: Router, options: DashboardOptions): void {
  const { store } = options;
  const post = [refuseCrossSite(options), formBody];
  // A code that was not found is never shown back: the form comes back empty.
  const codeForm = (res: Response, status: number, session: SessionView, message?: string, code = '') =>
    sendPage(res, status, deviceCodePage({ session, code, message }));

  // Over the limits, even a right code is refused unchecked, as sign-in refuses a right password.
  const throttled = (res: Response, session: SessionView, retryAfterSeconds: number) => {
    res.set('Retry-After', String(retryAfterSeconds));
    codeForm(res, 429, session, THROTTLED);
  };

  const answer = (res: Response, session: SessionView, decision: DeviceDecision, organizationId = '') => {
    if (typeof decision === 'object') return throttled(res, session, decision.retryAfterSeconds);
    if (decision === 'not_found') return codeForm(res, 422, session, UNKNOWN);
    if (decision === 'forbidden') {
      return sendMessage(res, 403, {
        title: 'Not a member',
        message:
          'You are not a member of the organization you chose, so the hub did not approve the login. Type the code again and choose one of your organizations.',
        link: { href: '/device', text: 'Type the code again' },
        session,
      });
    }
    if (decision === 'denied') {
      return sendMessage(res, 200, {
        title: 'CLI login denied',
        message:
          'The terminal that asked gets no access: hub login there stops with “access denied”. If you did not start this login, nothing more is needed.',
        link: { href: '/', text: 'Go to the dashboard' },
        session,
      });
    }
    const organization = session.organizations.find((membership) => membership.organizationId === organizationId);
    sendMessage(res, 200, {
      title: 'CLI login approved',
      message: `Return to your terminal: hub login finishes by itself. The login acts for ${organization?.name ?? 'the organization you chose'} until you revoke it on your account page.`,
      link: { href: '/account#cli-logins', text: 'Your CLI logins' },
      session,
    });
  };

  router.get('/device', async (req, res) => {
    const code = userCodeOf(typeof req.query.user_code === 'string' ? req.query.user_code : '');
    const signed = await requireSession(options, req, res, devicePath(code));
    if (!signed) return;
    codeForm(res, 200, signed.session, undefined, code);
  });

  router.post('/device', ...post, async (req, res) => {
    const typed = field(req.body, 'user_code');
    const code = userCodeOf(typed);
    const signed = await requireSession(options, req, res, devicePath(code));
    if (!signed) return;
    const { session } = signed;
    if (code === undefined) {
      return codeForm(
        res,
        422,
        session,
        typed.trim() === ''
          ? 'Type the code your terminal shows.'
          : 'A code has 8 letters, such as BCDF-GHJK: check the one your terminal shows.',
      );
    }
    const found = await store.deviceRequest(session.account.id, code, clientAddress(req));
    if (found.ok) return sendPage(res, 200, deviceConfirmPage({ session, request: found.request }));
    if (found.reason === 'throttled') return throttled(res, session, found.retryAfterSeconds);
    codeForm(res, 422, session, UNKNOWN);
  });

  router.post('/device/approve', ...post, async (req, res) => {
    const code = userCodeOf(field(req.body, 'user_code'));
    const signed = await requireSession(options, req, res, devicePath(code));
    if (!signed) return;
    const organizationId = field(req.body, 'organization');
    // A malformed code is counted too: every decision is a guess (store.approveDevice parses it again).
    const decision = await store.approveDevice(
      signed.session.account.id,
      code ?? '',
      organizationId,
      clientAddress(req),
    );
    answer(res, signed.session, decision, organizationId);
  });

  router.post('/device/deny', ...post, async (req, res) => {
    const code = userCodeOf(field(req.body, 'user_code'));
    const signed = await requireSession(options, req, res, devicePath(code));
    if (!signed) return;
    answer(res, signed.session, await store.denyDevice(signed.session.account.id, code ?? '', clientAddress(req)));
  });
}
