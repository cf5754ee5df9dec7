// Following a run to its end (`hub run --follow`, `hub logs --follow`): the output of each of its
// executions, in step order, streamed (Server-Sent Events) as the agent prints it; the next
// step's execution picked up once one ends (the run is asked about every second); the run as it
// ended at last. A dropped connection or a restarting hub is waited out with backoff and the
// stream resumed after the last chunk received (Last-Event-ID), so each chunk shows once, in order.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Execution, Run } from '@hub/schemas';
import { CliError, Interrupted } from './errors.js';
import { isObject, isStoredLogin, LoginEnded, printable } from './hub-client.js';
import { fetchRun, HubUnavailable, openOutput, type Session } from './run-api.js';
import type { RunOutput, StepEnd } from './run-output.js';
import { EXIT_CODES, isFinal, suggest } from './run-view.js';
import { SseParser, sseEvents } from './sse.js';

/** How often a running run is asked whether its next step has started. */
const POLL_MS = 1_000;
/** The hub sends a keep-alive every 15 s: three missed is a dead connection. */
const IDLE_MS = 45_000;
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 15_000;
/** A hub unreachable this long is given up on. */
const GIVE_UP_MS = 5 * 60_000;

type End = StepEnd;

/** Where a stream of one execution stands, across reconnections. */
interface StreamState {
  lastEventId: string;
  /** The seq the next chunk to show must have at least: one shown before is never shown again. */
  nextSeq: number;
  retryMs: number | undefined;
}

/** Shows the run's output until it ends, and resolves with the run as it ended. */
export async function followRun(session: Session, runId: string, out: RunOutput): Promise<Run> {
  const retry = new Retry(session, out, runId);
  let next = 0;
  for (;;) {
    const run = await retry.around(async (connected) => {
      const fetched = await fetchRun(session, runId);
      connected();
      return fetched;
    });
    const execution = run.executions[next];
    if (execution !== undefined) {
      await followExecution(session, runId, execution, out, retry);
      next += 1;
    } else if (isFinal(run.status)) {
      return run;
    } else {
      await pause(POLL_MS, session.stop);
    }
  }
}

async function followExecution(
  session: Session,
  runId: string,
  execution: Execution,
  out: RunOutput,
  retry: Retry,
): Promise<void> {
  out.stepStarted(execution);
  const state: StreamState = { lastEventId: '', nextSeq: 0, retryMs: undefined };
  const end = await retry.around(
    (connected) => streamOnce(session, runId, execution.executionId, { out, state, connected }),
    () => state.retryMs,
  );
  out.stepEnded(execution, end);
}

/** One connection to the execution's event stream, until its `end` event; any other end is HubUnavailable. */
async function streamOnce(
  session: Session,
  runId: string,
  executionId: string,
  context: { out: RunOutput; state: StreamState; connected: () => void },
): Promise<End> {
  const { state } = context;
  const parser = new SseParser();
  parser.lastEventId = state.lastEventId;
  try {
    const bytes = await openOutput(session, runId, executionId, {
      accept: 'text/event-stream',
      lastEventId: state.lastEventId,
      idleMs: IDLE_MS,
    });
    context.connected();
    for await (const event of sseEvents(bytes, parser)) {
      if (event.type === 'output') await showChunk(event.data, state, context.out);
      else if (event.type === 'cut') context.out.cut(cutBytes(event.data));
      else if (event.type === 'end') return readEnd(event.data, session);
    }
  } finally {
    state.lastEventId = parser.lastEventId;
    state.retryMs = parser.retryMs ?? state.retryMs;
  }
  throw new HubUnavailable(`the hub at ${session.origin} closed the output stream before the step ended`);
}

async function showChunk(data: string, state: StreamState, out: RunOutput): Promise<void> {
  const chunk = parse(data);
  if (!isObject(chunk) || !Number.isInteger(chunk.seq) || typeof chunk.text !== 'string')
    throw unreadable('output', data);
  if ((chunk.seq as number) < state.nextSeq) return;
  state.nextSeq = (chunk.seq as number) + 1;
  await out.agent(chunk.text);
}

/** Why the hub ends a stream before its execution ends (`end` with a `reason`), for people. */
const STREAM_ENDED: Record<string, string> = {
  credential_revoked: 'the credential was revoked',
  credential_expired: 'the credential expired',
  not_a_member: 'its person is no longer a member of the organization',
};

function readEnd(data: string, session: Session): End {
  const end = parse(data);
  if (isObject(end) && typeof end.reason === 'string' && typeof end.status !== 'string') {
    const reason = printable(end.reason).slice(0, 100);
    const why = `The hub ended the output stream: ${STREAM_ENDED[reason] ?? 'the hub gave no more'} (${reason}). The run goes on.`;
    if (isStoredLogin(session.token) && Object.hasOwn(STREAM_ENDED, reason)) throw new LoginEnded(session.origin, why);
    throw new CliError(why);
  }
  if (!isObject(end) || typeof end.status !== 'string') throw unreadable('end', data);
  return {
    status: end.status as End['status'],
    exitCode: Number.isInteger(end.exitCode) ? (end.exitCode as number) : null,
    message: typeof end.message === 'string' ? end.message : null,
  };
}

function cutBytes(data: string): number | undefined {
  const cut = parse(data);
  return isObject(cut) && Number.isInteger(cut.bytes) ? (cut.bytes as number) : undefined;
}

function parse(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

function unreadable(type: string, data: string): CliError {
  return new CliError(
    `The hub sent an "${type}" event this version of hub cannot read: ${JSON.stringify(data.slice(0, 200))}`,
  );
}

async function pause(ms: number, stop: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal: stop });
  } catch {
    throw new Interrupted(stop.reason);
  }
}

/**
 * Waits out a hub that is unavailable: tries again with growing delays (from the stream's
 * `retry`, else 1 s, doubling to 15 s; never sooner than the answer's Retry-After), says so once
 * per outage on standard error, and gives up
 * after 5 minutes without reaching it. An outage ends when a request is answered.
 */
class Retry {
  private outageSince: number | undefined;
  private attempts = 0;

  constructor(
    private readonly session: Session,
    private readonly out: RunOutput,
    private readonly runId: string,
  ) {}

  async around<T>(
    attempt: (connected: () => void) => Promise<T>,
    firstDelayMs: () => number | undefined = () => undefined,
  ): Promise<T> {
    const connected = () => {
      this.outageSince = undefined;
      this.attempts = 0;
    };
    for (;;) {
      try {
        return await attempt(connected);
      } catch (error) {
        if (!(error instanceof HubUnavailable)) throw error;
        await this.wait(error, firstDelayMs() ?? FIRST_RETRY_MS);
      }
    }
  }

  private async wait(error: HubUnavailable, firstDelayMs: number): Promise<void> {
    const now = Date.now();
    if (this.outageSince === undefined) {
      this.outageSince = now;
      this.out.note(
        `hub: ${error.message}; trying again and resuming where it stopped (Ctrl-C stops following; the run goes on).\n`,
      );
    } else if (now - this.outageSince > GIVE_UP_MS) {
      throw new CliError(
        `${error.message}. Gave up after ${GIVE_UP_MS / 60_000} minutes; the run goes on: "hub logs ${this.runId} --follow" follows it again.`,
      );
    }
    await pause(
      Math.max(Math.min(firstDelayMs * 2 ** this.attempts, MAX_RETRY_MS), (error.retryAfterSeconds ?? 0) * 1_000),
      this.session.stop,
    );
    this.attempts += 1;
  }
}

/**
 * `--follow` of `hub run` and `hub logs`: the run's output to its end, a last line with its
 * status, and the exit code of that status; Ctrl-C stops following (never the run) and says how
 * to cancel it.
 */
export async function followToEnd(
  session: Session,
  runId: string,
  out: RunOutput,
  originArgument: string | undefined,
): Promise<number> {
  try {
    const run = await followRun(session, runId, out);
    out.runEnded(run);
    return isFinal(run.status) ? EXIT_CODES[run.status] : 1;
  } catch (error) {
    if (!(error instanceof Interrupted)) throw error;
    out.note(
      `Stopped following run ${runId}; the run goes on. To cancel it: ${suggest(`hub cancel ${runId}`, originArgument)}\n`,
    );
    return error.exitCode;
  }
}
