import type { Response, Router } from 'express';
import { clearedSessionCookie, sessionCookie } from '../cookies.js';
import { field, setupProblem, SIGN_IN_THROTTLED, SIGN_IN_WRONG } from '../forms.js';
import type { SetupInput } from '../forms.js';
import {
  clientAddress,
  currentSession,
  formBody,
  refuseCrossSite,
  requireSession,
  seeOther,
  sendMessage,
  sendPage,
  sessionSecret,
} from '../http.js';
import type { DashboardOptions } from '../http.js';
import { EMPTY_SETUP, setupPage, signInPage } from '../pages/index.js';
import { safeNext } from '../security.js';

const SETUP_FAILURES = {
  token_invalid: {
    status: 403,
    message: 'This setup link is not valid or was already used. Use the link the hub printed when it started.',
  },
  organization_exists: { status: 409, message: 'An organization with this slug exists already: choose another slug.' },
  invalid_input: { status: 422, message: 'The hub could not accept these values: check each field.' },
} as const;

/** Setup, sign-in, sign-out and the organization switch. */
export function accountRoutes(router: Router, options: DashboardOptions): void {
  const { store, publicUrl } = options;
  const post = [refuseCrossSite(options), formBody];

  router.get('/', async (req, res) => {
    seeOther(res, (await currentSession(store, req)) ? '/keys' : '/sign-in');
  });

  router.get('/setup', async (req, res) => {
    if (!(await store.setupPending())) return alreadySetUp(res);
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    if (token === '') {
      return sendMessage(res, 400, {
        title: 'Set up the hub',
        message: 'Open the setup link the hub printed when it started (it is also kept in its data directory).',
      });
    }
    sendPage(res, 200, setupPage({ token, values: EMPTY_SETUP }));
  });

  router.post('/setup', ...post, async (req, res) => {
    if (!(await store.setupPending())) return alreadySetUp(res);
    const input = setupInput(req.body);
    const token = field(req.body, 'token');
    const { password, ...values } = input;
    const problem = setupProblem(input);
    if (problem) return sendPage(res, 422, setupPage({ token, values, message: problem }));
    const result = await store.completeSetup(
      token,
      { name: input.name.trim(), email: input.email, password },
      { slug: input.slug, name: input.organizationName.trim() },
    );
    if (!result.ok) {
      const failure = SETUP_FAILURES[result.reason];
      return sendPage(res, failure.status, setupPage({ token, values, message: failure.message }));
    }
    res.append('Set-Cookie', sessionCookie(result.sessionSecret, publicUrl));
    seeOther(res, '/keys');
  });

  // `next`: the page that sent the person here (the device page), when it is on this site.
  router.get('/sign-in', async (req, res) => {
    const next = safeNext(req.query.next);
    if (await currentSession(store, req)) return seeOther(res, next ?? '/keys');
    sendPage(res, 200, signInPage({ email: '', next }));
  });

  router.post('/sign-in', ...post, async (req, res) => {
    const email = field(req.body, 'email').trim();
    const next = safeNext(field(req.body, 'next'));
    const result = await store.signIn(email, field(req.body, 'password'), clientAddress(req));
    if (!result.ok && result.reason === 'throttled') {
      res.set('Retry-After', String(result.retryAfterSeconds));
      return sendPage(res, 429, signInPage({ email, next, message: SIGN_IN_THROTTLED }));
    }
    if (!result.ok) return sendPage(res, 401, signInPage({ email, next, message: SIGN_IN_WRONG }));
    // A session that was open in this browser ends with the new one.
    const previous = sessionSecret(req);
    if (previous !== undefined) await store.signOut(previous);
    res.append('Set-Cookie', sessionCookie(result.sessionSecret, publicUrl));
    seeOther(res, next ?? '/keys');
  });

  router.post('/sign-out', ...post, async (req, res) => {
    const secret = sessionSecret(req);
    if (secret !== undefined) await store.signOut(secret);
    res.append('Set-Cookie', clearedSessionCookie(publicUrl));
    seeOther(res, '/sign-in');
  });

  router.post('/organization', ...post, async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    if (!(await store.switchOrganization(signed.secret, field(req.body, 'slug')))) {
      return sendMessage(res, 404, {
        title: 'No such organization',
        message: 'You are not a member of that organization.',
        link: { href: '/keys', text: 'Back to API keys' },
        session: signed.session,
      });
    }
    seeOther(res, '/keys');
  });
}

function setupInput(body: unknown): SetupInput {
  return {
    name: field(body, 'name'),
    email: field(body, 'email').trim(),
    password: field(body, 'password'),
    slug: field(body, 'slug').trim(),
    organizationName: field(body, 'organizationName'),
  };
}

function alreadySetUp(res: Response): void {
  sendMessage(res, 409, {
    title: 'Already set up',
    message: 'This hub already has an owner.',
    link: { href: '/sign-in', text: 'Sign in' },
  });
}
