// The hub's run endpoints as the run commands use them: a run, and an execution's output as text
// or as a live event stream. Answers are checked before they are used; a hub that is down or
// overloaded is told apart (HubUnavailable), so that following a run can wait for it.
import { isUuid, type Execution, type Run } from '@hub/schemas';
import { CliError, Interrupted, UsageError } from './errors.js';
import {
  hubRequest,
  isObject,
  LoginEnded,
  loginEnded,
  printable,
  renderProblem,
  retryAfterSeconds,
  type HubAnswer,
} from './hub-client.js';
import type { Unread } from './unread.js';

/** Which hub, with which credential; `stop` is Ctrl-C. */
export interface Session {
  origin: string;
  token: string;
  stop: AbortSignal;
}

/** The hub could not answer now (unreachable, 5xx, 429): worth asking again later, not before its Retry-After. */
export class HubUnavailable extends CliError {
  constructor(
    message: string,
    /** The answer's Retry-After, in seconds, when it had one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** The RUN argument: a run id as `hub run` and `hub runs` print it. */
export function runIdArgument(value: string | undefined, command: string): string {
  if (value === undefined) throw new UsageError('Give the run id (hub run prints it; hub runs lists them).', command);
  if (!isUuid(value))
    throw new UsageError(
      `"${printable(value)}" is not a run id: a run id is a UUID such as 8f2a6c4e-1b3d-4e5f-9a7b-0c2d4e6f8a1b (hub runs lists them).`,
      command,
    );
  return value.toLowerCase();
}

export function runPath(runId: string): string {
  return `/api/v1/runs/${encodeURIComponent(runId)}`;
}

/** GET /api/v1/runs/{runId}, checked. */
export async function fetchRun(session: Session, runId: string): Promise<Run> {
  const answer = await ask(session, 'GET', runPath(runId));
  if (answer.status !== 200) throw failure(answer);
  const run = readRun(answer.body);
  if (run === undefined) throw new CliError(`The hub at ${session.origin} answered with something other than a run.`);
  return run;
}

/** One request; no answer is HubUnavailable, Ctrl-C is Interrupted. */
export async function ask(session: Session, method: string, path: string, body?: string): Promise<HubAnswer> {
  try {
    return await hubRequest(session.origin, session.token, method, path, body, session.stop);
  } catch (error) {
    if (error instanceof CliError && !(error instanceof LoginEnded)) throw new HubUnavailable(error.message);
    throw error;
  }
}

/** A refusal as an error to show: HubUnavailable when asking again later may help. */
export function failure(answer: HubAnswer): CliError {
  return transient(answer.status)
    ? new HubUnavailable(renderProblem(answer), retryAfterSeconds(answer.headers))
    : new CliError(renderProblem(answer));
}

function transient(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}

/**
 * The output of an execution: `text/plain` (all of it so far) or `text/event-stream` (live, from
 * after `lastEventId`), as its body's bytes when they arrive. The connection is given up
 * (HubUnavailable) when no byte comes for `idleMs`, from the request on.
 */
export async function openOutput(
  session: Session,
  runId: string,
  executionId: string,
  options: { accept: 'text/plain' | 'text/event-stream'; lastEventId?: string; idleMs: number },
): Promise<AsyncGenerator<Uint8Array>> {
  const headers: Record<string, string> = { authorization: `Bearer ${session.token}`, accept: options.accept };
  if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
  const url = `${session.origin}${runPath(runId)}/executions/${encodeURIComponent(executionId)}/output`;
  const idle = watchdog(options.idleMs);
  const lost = (error: unknown) =>
    session.stop.aborted
      ? new Interrupted(session.stop.reason)
      : new HubUnavailable(
          `lost the connection to the hub at ${session.origin}: ${idle.signal.aborted ? String(idle.signal.reason) : reasonOf(error)}`,
        );
  let response: Response;
  try {
    response = await fetch(url, { headers, redirect: 'manual', signal: AbortSignal.any([session.stop, idle.signal]) });
  } catch (error) {
    idle.clear();
    throw lost(error);
  }
  if (response.status !== 200 || mediaType(response) !== options.accept) {
    idle.clear();
    throw await refusal(session, response, options.accept);
  }
  const body = response.body ?? (async function* () {})();
  return (async function* () {
    try {
      for await (const bytes of body) {
        idle.touch();
        yield bytes;
      }
    } catch (error) {
      throw lost(error);
    } finally {
      idle.clear();
    }
  })();
}

/** An abort signal that fires when `touch` has not been called for `ms` (from its creation on). */
function watchdog(ms: number): { signal: AbortSignal; touch(): void; clear(): void } {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(`no data for ${ms / 1_000} s`), ms);
  };
  touch();
  return { signal: controller.signal, touch, clear: () => clearTimeout(timer) };
}

function mediaType(response: Response): string {
  return (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

async function refusal(session: Session, response: Response, accept: string): Promise<CliError> {
  const text = await response.text().catch(() => '');
  if (response.status !== 200) {
    const answer = { status: response.status, headers: response.headers, body: parseJson(text), text };
    return loginEnded(session.origin, session.token, answer) ?? failure(answer);
  }
  return new CliError(
    `The hub at ${session.origin} answered the output as ${printable(mediaType(response)) || 'no content type'} instead of ${accept}.`,
  );
}

/** What fetch hides in `cause`: ECONNREFUSED, ENOTFOUND, ECONNRESET, else undici's words ("other side closed"). */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code?.startsWith('UND_ERR') ? undefined : cause?.code;
  return code ?? cause?.message ?? (error as Error).message;
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A run as the hub answers it, with what the commands read checked; `undefined` when it is not one. */
export function readRun(body: unknown): Run | undefined {
  if (!isObject(body)) return undefined;
  const run: Unread<Run> = body;
  const strings = [run.triggerRunId, run.projectSlug, run.trigger, run.actor, run.status, run.createdAt].every(
    (value) => typeof value === 'string',
  );
  const nullable = [run.finishedAt, run.cancelRequestedAt ?? null].every(
    (value) => value === null || typeof value === 'string',
  );
  if (!strings || !nullable || !Array.isArray(run.executions) || !run.executions.every(isExecution)) return undefined;
  // A hub from before schedules gives no source: its runs were all manual.
  const source = typeof run.source === 'string' ? (run.source as Run['source']) : 'manual';
  return { ...(body as Run), source, cancelRequestedAt: (run.cancelRequestedAt as string | null | undefined) ?? null };
}

function isExecution(value: unknown): value is Execution {
  if (!isObject(value)) return false;
  const execution: Unread<Execution> = value;
  return [execution.executionId, execution.stepId, execution.daemon, execution.status].every(
    (field) => typeof field === 'string',
  );
}
