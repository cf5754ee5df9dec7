// An execution's output for people: the text so far, or a live Server-Sent Events stream that
// any hub instance serves (woken by the NOTIFY that migration 007's triggers send).
import { once } from 'node:events';
import type { Request, Response } from 'express';
import { credentialEnded, DEFAULT_CLI_CREDENTIAL_EXPIRY } from '../../auth/api-key.js';
import { databaseUnavailable } from '../../db/health.js';
import { authOf } from '../../http/context.js';
import { OutputRepository, type OutputState, type StoredChunk } from './sql.js';
import { isFinal } from '../states.js';
import type { ExecutionStatus } from '../executions.js';
import type { Hub } from '../../hub.js';

/** Chunks read per query. */
const PAGE = 500;
/** A comment this often keeps proxies from closing an idle stream. */
export const KEEP_ALIVE_MS = 15_000;
/** Without LISTEN (a hub made without output wake-ups), a stream looks this often. */
const POLL_MS = 1_000;
/** A stream checks its credential again this often (HubOptions.streamRecheckMs, HUB_STREAM_RECHECK_MS). */
export const DEFAULT_STREAM_RECHECK_MS = 5_000;

/**
 * Who reads a stream, for readers other than the API's (the dashboard's, by session): why their
 * access has ended (undefined while it has not), checked every `streamRecheckMs`; and the seq to
 * resume after when the request has no Last-Event-ID.
 */
export interface OutputReader {
  ended(): Promise<string | undefined>;
  after?: number | undefined;
}

export async function sendOutput(
  hub: Hub,
  req: Request,
  res: Response,
  state: OutputState,
  reader?: OutputReader,
): Promise<void> {
  const output = new OutputRepository(hub.sql);
  if (/\btext\/event-stream\b/i.test(req.get('accept') ?? '')) await stream(hub, output, req, res, state, reader);
  else await plain(output, req, res, state);
}

/** Everything so far, as text; where the hub cut the output, a line says how much. */
async function plain(output: OutputRepository, req: Request, res: Response, state: OutputState): Promise<void> {
  const closed = closing(res);
  res.status(200).type('text/plain; charset=utf-8');
  let last = -1;
  for (;;) {
    const chunks = await output.chunks(state.executionId, last, PAGE);
    for (const chunk of chunks) {
      if (chunk.seq > last + 1)
        await write(
          res,
          `\n[… ${state.cutBytes} bytes of output cut here: the hub keeps the first and the last 5 MiB …]\n`,
          closed,
        );
      await write(res, chunk.text, closed);
      last = chunk.seq;
    }
    if (chunks.length < PAGE || closed.aborted) break;
  }
  res.end();
}

/**
 * Output events from after Last-Event-ID, live, then `end` once the execution has ended. The
 * watch starts before the first read, so a NOTIFY between a read and the wait is not lost; the
 * status is read after the chunks, and the chunks once more when it is final, so the `end` event
 * follows every chunk stored before the end.
 *
 * The credential the stream was opened with is checked again every `streamRecheckMs` (5 s), busy
 * or idle: once it is revoked, expired, or its person is no longer a member of the organization,
 * the stream sends `end` with `{executionId, reason}` (no status: the execution goes on) and
 * closes, and a reconnection gets the 401 of every refused credential.
 */
async function stream(
  hub: Hub,
  output: OutputRepository,
  req: Request,
  res: Response,
  state: OutputState,
  reader: OutputReader | undefined,
): Promise<void> {
  const closed = closing(res);
  const recheckMs = hub.options.streamRecheckMs ?? DEFAULT_STREAM_RECHECK_MS;
  const ended = reader?.ended ?? keyEnded(hub, authOf(req).keyId);
  let checkedAt = Date.now();
  let wroteAt = Date.now();
  const watch = hub.outputWakeups?.watch(state.executionId);
  res.status(200).set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  const resumeAt = req.get('last-event-id');
  let last = resumeAt === undefined ? (reader?.after ?? -1) : lastEventId(resumeAt);
  const send = async (chunks: StoredChunk[]) => {
    for (const chunk of chunks) {
      if (chunk.seq > last + 1)
        await write(res, `event: cut\ndata: ${JSON.stringify({ bytes: state.cutBytes })}\n\n`, closed);
      const data = JSON.stringify({
        seq: chunk.seq,
        stream: chunk.stream,
        at: chunk.at.toISOString(),
        text: chunk.text,
      });
      await write(res, `id: ${chunk.seq}\nevent: output\ndata: ${data}\n\n`, closed);
      last = chunk.seq;
    }
    return chunks.length;
  };
  try {
    await write(res, 'retry: 2000\n\n', closed);
    while (!closed.aborted) {
      if (Date.now() - checkedAt >= recheckMs) {
        const reason = await ended();
        if (reason !== undefined) {
          await write(
            res,
            `event: end\ndata: ${JSON.stringify({ executionId: state.executionId, reason })}\n\n`,
            closed,
          );
          break;
        }
        checkedAt = Date.now();
      }
      const sent = await send(await output.chunks(state.executionId, last, PAGE));
      if (sent > 0) wroteAt = Date.now();
      if (sent === PAGE) continue;
      const now = await output.status(state.executionId);
      if (now !== undefined && isFinal(now.status as ExecutionStatus)) {
        while ((await send(await output.chunks(state.executionId, last, PAGE))) === PAGE);
        await write(res, `event: end\ndata: ${JSON.stringify({ executionId: state.executionId, ...now })}\n\n`, closed);
        break;
      }
      // A stopping hub ends the stream; the client resumes on another instance with Last-Event-ID.
      if (hub.outputWakeups?.stopping === true) break;
      // Woken by new output, else at the next credential check or keep-alive, whichever is first.
      const at = Date.now();
      const untilCheck = Math.max(0, checkedAt + recheckMs - at);
      if (watch === undefined) await pause(Math.min(POLL_MS, untilCheck), closed);
      else await watch.wait(Math.min(untilCheck, Math.max(0, wroteAt + KEEP_ALIVE_MS - at)));
      if (Date.now() - wroteAt >= KEEP_ALIVE_MS) {
        await write(res, ': keep-alive\n\n', closed);
        wroteAt = Date.now();
      }
      // So does a database that went away (the health woke the wait): the client resumes once it is back.
      if (hub.health?.down === true) break;
    }
  } catch (error) {
    // Mid-stream, a lost database ends the stream the same way; anything else is the hub's fault.
    if (!databaseUnavailable(error)) throw error;
    hub.health?.report(error);
  } finally {
    watch?.close();
    res.end();
  }
}

/** Why the API's credential no longer reads the stream: revoked, expired, or its person left. */
function keyEnded(hub: Hub, keyId: string): () => Promise<string | undefined> {
  const expiry = hub.options.cliCredentials ?? DEFAULT_CLI_CREDENTIAL_EXPIRY;
  return () => credentialEnded(hub.authSql, keyId, expiry);
}

/** The seq to resume after: a whole number, else -1 (from the start). */
export function lastEventId(header: string | undefined): number {
  const value = header === undefined ? NaN : Number(header.trim());
  return Number.isInteger(value) && value >= 0 && value < 2 ** 31 ? value : -1;
}

/** Aborts when the client goes away (the response's close: the request's comes once it is read). */
function closing(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => controller.abort());
  return controller.signal;
}

/** Writes, waiting for the client to take it (backpressure) unless it has gone. */
async function write(res: Response, text: string, closed: AbortSignal): Promise<void> {
  if (closed.aborted || res.write(text)) return;
  await once(res, 'drain', { signal: closed }).catch(() => undefined);
}

async function pause(ms: number, closed: AbortSignal): Promise<void> {
  await new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    closed.addEventListener('abort', () => (clearTimeout(timer), resolve(undefined)), { once: true });
  });
}
