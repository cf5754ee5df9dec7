// The daemon's side of the hub API (DECISIONS.md, Daemons): enrollment, then signed requests.
import type { KeyObject } from 'node:crypto';
import type { Assignment, FieldIssue, Problem, StatusReport, WireSchema } from '@hub/schemas';
import { readAssignment } from './assignment.js';
import type { Runtime } from './config.js';
import type { DaemonMetrics, RequestKind } from './metrics.js';
import { signRequest } from './signing.js';

/** A request that has no answer by then is given up as if the hub were unreachable. */
const REQUEST_TIMEOUT_MS = 30_000;
/** On top of a long poll's wait: the hub answers 204 after it, plus network time. */
const LONG_POLL_SLACK_MS = 15_000;

/** What came where a wire type `T` belongs, before it is checked: `T`'s members, each missing or of any type. */
type Unread<T> = { [K in keyof T]?: unknown };

/**
 * The hub's `Problem`, read loosely: any member may be missing from a proxy's error page, and a
 * code is kept as the text it is, whether or not this daemon knows it.
 */
export type HubProblem = Partial<Pick<Problem, 'title' | 'detail' | 'requestId'>> & {
  code?: string;
  issues?: FieldIssue[];
};

/** The hub answered, but not with success. */
export class HubError extends Error {
  constructor(
    readonly status: number,
    readonly problem: HubProblem,
    /** The hub's clock from the Date header, in Unix ms: a 401 may come from a wrong clock here. */
    readonly serverDate: number | undefined,
    /** Retry-After in ms (a 503 or a 429): the least a retry should wait. */
    readonly retryAfterMs?: number,
  ) {
    super(
      `${status}${problem.code === undefined ? '' : ` ${problem.code}`}: ${problem.detail ?? problem.title ?? 'no detail'}`,
    );
  }
}

/** No answer: the connection failed, broke, or took too long. */
export class HubUnreachable extends Error {}

/** How long the hub asked to wait before trying again (Retry-After), in ms; 0 when it did not say. */
export function retryAfterMs(error: unknown): number {
  return error instanceof HubError ? (error.retryAfterMs ?? 0) : 0;
}

/** Retry-After (RFC 9110, 10.2.3): delay seconds or an HTTP date, in ms from now; at most 5 minutes. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  // An HTTP date starts with its day's name (IMF-fixdate, RFC 850, asctime); anything else is no date.
  const ms = /^\d+$/.test(text) ? Number(text) * 1_000 : /^[A-Za-z]{3,9},?\s/.test(text) ? Date.parse(text) - now : NaN;
  return Number.isNaN(ms) ? undefined : Math.min(Math.max(ms, 0), 300_000);
}

/** Worth trying again later: the hub is down, restarting, or overloaded. */
export function isTransient(error: unknown): boolean {
  return (
    error instanceof HubUnreachable ||
    (error instanceof HubError && (error.status >= 500 || error.status === 429 || error.status === 408))
  );
}

/**
 * The body of POST /api/v1/daemons/enroll. `replace` has a default (false), which the generated
 * types make required (openapi-typescript's defaultNonNullable); a request may leave it out.
 */
export type Enrollment = Omit<WireSchema<'EnrollRequest'>, 'replace'> &
  Partial<Pick<WireSchema<'EnrollRequest'>, 'replace'>>;

/** A long poll's answer: executions to cancel, an assignment, or (both absent) nothing within the wait. */
export interface PollAnswer {
  cancel?: string[];
  assignment?: Assignment;
  /** With nothing: the hub's Retry-After (a stopping instance answers at once with it), in ms. */
  retryAfterMs?: number;
}

export type OutputChunk = WireSchema<'OutputChunk'>;

export class HubClient {
  constructor(
    readonly origin: string,
    /** Needed for everything but enrollment. */
    private readonly identity?: { daemonId: string; privateKey: KeyObject },
    /** Counts round trips and the output the hub took, when the daemon serves metrics. */
    private readonly metrics?: DaemonMetrics,
  ) {}

  async enroll(enrollment: Enrollment): Promise<WireSchema<'EnrolledDaemon'>> {
    const { body } = await this.request('POST', '/api/v1/daemons/enroll', { body: enrollment, signed: false });
    return body as WireSchema<'EnrolledDaemon'>;
  }

  async heartbeat(runtimes: Runtime[], signal?: AbortSignal): Promise<void> {
    const heartbeat: WireSchema<'Heartbeat'> = { runtimes };
    await this.request('POST', '/api/v1/daemon/heartbeat', { body: heartbeat, signal, kind: 'heartbeat' });
  }

  /**
   * The long poll: executions to cancel, else the next assignment (only with `capacity` 1), or
   * nothing when neither came within `waitSeconds` (0–30). A daemon at its concurrency limit
   * polls with `capacity` 0, to hear cancellations.
   */
  async nextAssignment(waitSeconds: number, capacity: 0 | 1, signal?: AbortSignal): Promise<PollAnswer> {
    const { status, body, retryAfterMs } = await this.request(
      'GET',
      `/api/v1/daemon/assignments/next?wait=${waitSeconds}&capacity=${capacity}`,
      { signal, timeoutMs: waitSeconds * 1_000 + LONG_POLL_SLACK_MS, kind: 'next_assignment' },
    );
    if (status === 204) return retryAfterMs === undefined ? {} : { retryAfterMs };
    const answer = (body ?? {}) as Unread<WireSchema<'AssignmentAnswer'> & WireSchema<'CancelAnswer'>>;
    if (answer.cancel !== undefined) return { cancel: readCancel(answer.cancel) };
    return { assignment: readAssignment(answer.assignment) };
  }

  /** Sends chunks of an execution's output; answers the seq the hub expects next (every one below it is stored). */
  async appendOutput(executionId: string, chunks: OutputChunk[], signal?: AbortSignal): Promise<number> {
    const request: WireSchema<'OutputRequest'> = { chunks };
    const { body } = await this.request('POST', `/api/v1/daemon/executions/${encodeURIComponent(executionId)}/output`, {
      body: request,
      signal,
      kind: 'output',
    });
    const nextSeq = (body as Unread<WireSchema<'OutputAnswer'>> | undefined)?.nextSeq;
    if (!Number.isSafeInteger(nextSeq))
      throw new HubUnreachable(`the hub at ${this.origin} answered the output of ${executionId} without nextSeq`);
    this.metrics?.sent(chunks.reduce((sum, chunk) => sum + Buffer.byteLength(chunk.text), 0));
    return nextSeq as number;
  }

  /** Tells the hub that this daemon stops: it is offline at once, until its next signed request. */
  async offline(timeoutMs: number): Promise<void> {
    await this.request('POST', '/api/v1/daemon/offline', { body: {}, timeoutMs, kind: 'offline' });
  }

  async reportStatus(executionId: string, report: StatusReport, signal?: AbortSignal): Promise<void> {
    await this.request('POST', `/api/v1/daemon/executions/${encodeURIComponent(executionId)}/status`, {
      body: report,
      signal,
      kind: 'status',
    });
  }

  /** Throws HubError for an answer that is not 2xx, HubUnreachable for none, and the caller's abort reason when `signal` aborts. */
  private async request(
    method: string,
    pathWithQuery: string,
    options: { body?: unknown; signed?: boolean; signal?: AbortSignal; timeoutMs?: number; kind?: RequestKind },
  ): Promise<{ status: number; body: unknown; retryAfterMs?: number | undefined }> {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    if (options.signed !== false) {
      if (this.identity === undefined) throw new Error('a signed request needs the daemon identity');
      Object.assign(headers, signRequest({ method, pathWithQuery, body, ...this.identity }));
    }
    const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]);
    let response: Response;
    let text: string;
    const sent = performance.now();
    try {
      response = await fetch(`${this.origin}${pathWithQuery}`, { method, headers, body, signal });
      text = await response.text();
      if (options.kind !== undefined) this.metrics?.roundTrip(options.kind, (performance.now() - sent) / 1_000);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (timeout.aborted) throw new HubUnreachable(`no answer from ${this.origin} within ${timeoutMs / 1_000} s`);
      throw new HubUnreachable(`cannot reach ${this.origin}: ${describeNetworkError(error)}`);
    }
    const parsed = parseJson(text);
    if (!response.ok) {
      const date = Date.parse(response.headers.get('date') ?? '');
      throw new HubError(
        response.status,
        readProblem(parsed, text),
        Number.isNaN(date) ? undefined : date,
        parseRetryAfter(response.headers.get('retry-after')),
      );
    }
    return {
      status: response.status,
      body: parsed,
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
    };
  }
}

/** Execution ids to cancel; anything else in the list is ignored, as a cancel for an execution this daemon does not run would be. */
function readCancel(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

function readProblem(parsed: unknown, text: string): HubProblem {
  if (typeof parsed !== 'object' || parsed === null) return { detail: text.trim().slice(0, 200) || undefined };
  const { title, detail, code, requestId, issues } = parsed as Unread<Problem>;
  const string = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    title: string(title),
    detail: string(detail),
    code: string(code),
    requestId: string(requestId),
    issues: Array.isArray(issues)
      ? (issues.filter((issue) => typeof issue === 'object' && issue !== null) as FieldIssue[])
      : undefined,
  };
}

/** fetch's "fetch failed" hides the reason in `cause`: ECONNREFUSED, ENOTFOUND, a reset. */
function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
