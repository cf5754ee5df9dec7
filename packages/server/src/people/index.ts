// People: accounts, sessions, members, invitations, setup and sign-in. The dashboard reaches them
// through peopleStore (dashboard.ts); other features through what follows.
export { peopleStore } from './dashboard.js';
export { Sessions, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, SESSION_TOUCH_MS } from './sessions.js';
export {
  addressThrottleKey,
  countAttempt,
  secondsUntil,
  THROTTLE_PER_ACCOUNT,
  THROTTLE_PER_ADDRESS,
  THROTTLE_WINDOW_MS,
} from './sign-in.js';
export { hashPassword, verifyPassword } from './passwords.js';
export { AccountRepository, type AccountRow, type MembershipRow, type Role } from './sql/accounts.js';
export { SignInFailureRepository } from './sql/sign-in-failures.js';
