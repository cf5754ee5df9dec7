import { isIPv4, isIPv6 } from 'node:net';
import type { Request } from 'express';
import type { CounterState, ThrottleRepository } from './throttle-sql.js';
import { HttpProblem } from '../problems/problem.js';

/**
 * What is counted, each per client address or key prefix (docs/decisions.md, Throttling):
 * `auth-address` failed credentials of every kind (API keys, CLI credentials, the admin token,
 * daemon signatures, device codes), `auth-key` failures naming one key prefix, `enroll-address`
 * failed enrollments, `device-address` device logins started (every one: each stores a request).
 */
export type PolicyName = 'auth-address' | 'auth-key' | 'enroll-address' | 'device-address';

/** At most `limit` counted in a window of `windowSeconds` that starts at the first one. */
export interface Policy {
  limit: number;
  windowSeconds: number;
}

export type ThrottlePolicies = Record<PolicyName, Policy>;

export const DEFAULT_THROTTLE: ThrottlePolicies = {
  'auth-address': { limit: 30, windowSeconds: 300 },
  'auth-key': { limit: 10, windowSeconds: 300 },
  'enroll-address': { limit: 10, windowSeconds: 300 },
  'device-address': { limit: 20, windowSeconds: 600 },
};

/** The environment variable that sets each policy, as `<limit>/<window seconds>`. */
export const THROTTLE_ENV: Record<PolicyName, string> = {
  'auth-address': 'HUB_THROTTLE_AUTH_ADDRESS',
  'auth-key': 'HUB_THROTTLE_AUTH_KEY',
  'enroll-address': 'HUB_THROTTLE_ENROLL_ADDRESS',
  'device-address': 'HUB_THROTTLE_DEVICE_ADDRESS',
};

const OVER: Record<PolicyName, string> = {
  'auth-address': 'Too many failed authentications from this address',
  'auth-key': 'Too many failed authentications with this key',
  'enroll-address': 'Too many failed enrollments from this address',
  'device-address': 'Too many device logins started from this address',
};

type Counted = CounterState & { policy: PolicyName; limit: number; windowSeconds: number; remaining: number };

/** Throttling in PostgreSQL, so that it holds across hub instances. */
export class Throttle {
  constructor(
    private readonly counters: ThrottleRepository,
    private readonly policies: ThrottlePolicies,
  ) {}

  /**
   * Counts one failure against each policy's subject. Over any limit, throws 429
   * too_many_requests with Retry-After; otherwise returns the RateLimit and RateLimit-Policy
   * headers (draft-ietf-httpapi-ratelimit-headers) of the tightest policy, for the answer.
   */
  async count(hits: { policy: PolicyName; subject: string }[]): Promise<Record<string, string>> {
    const policyOf = new Map(hits.map(({ policy, subject }) => [`${policy}:${subject}`, policy]));
    const states = await this.counters.fail(
      [...policyOf].map(([key, policy]) => ({ key, windowSeconds: this.policies[policy].windowSeconds })),
    );
    const counted: Counted[] = states.map((state) => {
      const policy = policyOf.get(state.key) as PolicyName;
      const { limit, windowSeconds } = this.policies[policy];
      return { ...state, policy, limit, windowSeconds, remaining: Math.max(0, limit - state.failures) };
    });
    const over = counted.filter((state) => state.failures > state.limit);
    if (over.length > 0) {
      const longest = over.reduce((a, b) => (b.resetSeconds > a.resetSeconds ? b : a));
      throw new HttpProblem('too_many_requests', `${OVER[longest.policy]}; try again in ${longest.resetSeconds} s.`, {
        headers: { 'Retry-After': String(longest.resetSeconds), ...rateLimitHeaders(longest) },
      });
    }
    const tightest = counted.reduce((a, b) =>
      b.remaining < a.remaining || (b.remaining === a.remaining && b.resetSeconds > a.resetSeconds) ? b : a,
    );
    return rateLimitHeaders(tightest);
  }

  /** A failed credential from the request's address, and naming a key prefix when there is one. */
  failedAuthentication(req: Request, keyPrefix?: string): Promise<Record<string, string>> {
    const hits: { policy: PolicyName; subject: string }[] = [{ policy: 'auth-address', subject: clientAddress(req) }];
    if (keyPrefix !== undefined) hits.push({ policy: 'auth-key', subject: keyPrefix });
    return this.count(hits);
  }
}

function rateLimitHeaders(state: Counted): Record<string, string> {
  return {
    'RateLimit-Policy': `"${state.policy}";q=${state.limit};w=${state.windowSeconds}`,
    RateLimit: `"${state.policy}";r=${state.remaining};t=${state.resetSeconds}`,
  };
}

/**
 * The address a request is counted against: the socket's peer, or with HUB_TRUST_PROXY what
 * Express's `trust proxy` makes of X-Forwarded-For (app.ts sets it; `req.ip` is the peer otherwise).
 */
export function clientAddress(req: Request): string {
  return addressKey(req.ip ?? req.socket.remoteAddress ?? '');
}

/**
 * An address as throttling counts it: IPv4 as is (also when seen through an IPv6 socket as
 * `::ffff:a.b.c.d`), IPv6 by its /64, the least a single subscriber is usually given (RFC 6177).
 */
export function addressKey(address: string): string {
  const bare = address.replace(/%.*$/, '');
  if (isIPv4(bare)) return bare;
  if (!isIPv6(bare)) return 'unknown';
  const groups = hextets(bare.toLowerCase());
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address in text form (`::` and a dotted IPv4 tail expanded). */
function hextets(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const middle = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((group) => Number.parseInt(group, 16));
}
