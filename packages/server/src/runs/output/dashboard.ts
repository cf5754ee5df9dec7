// An execution's output for the dashboard's run page: the end of it as the page is first sent, and
// the same text or live stream as the API's, read with the person's session instead of a key.
import type { Request, Response } from 'express';
import type { Sql } from 'postgres';
import { isUuid } from '@hub/schemas';
import type { OutputReader } from './stream.js';
import { OutputRepository, type OutputState } from './sql.js';

/** What serves a stream (output/stream.ts's sendOutput, bound to the hub): absent, the dashboard has none. */
export type OutputServer = (req: Request, res: Response, state: OutputState, reader: OutputReader) => Promise<void>;

/** Chunks read per look back: a tail of 64 KiB is a few of them. */
const TAIL_CHUNKS = 200;

export function outputStore(sql: Sql, serve: OutputServer | undefined) {
  const output = new OutputRepository(sql);
  const stateOf = (organizationId: string, runId: string, executionId: string) =>
    isUuid(organizationId) && isUuid(runId) && isUuid(executionId)
      ? output.state(organizationId, executionId.toLowerCase(), runId.toLowerCase())
      : Promise.resolve(undefined);
  return {
    async outputTail(organizationId: string, runId: string, executionId: string, maxBytes: number) {
      const state = await stateOf(organizationId, runId, executionId);
      if (state === undefined) return undefined;
      const newest = await sql<{ seq: number; text: string; bytes: number }[]>`
        select seq, text, bytes from execution_output where execution_id = ${state.executionId}
        order by seq desc limit ${TAIL_CHUNKS}`;
      const kept: string[] = [];
      let bytes = 0;
      for (const chunk of newest) {
        if (bytes + chunk.bytes > maxBytes && kept.length > 0) break;
        kept.unshift(chunk.text);
        bytes += chunk.bytes;
      }
      const first = newest[kept.length - 1]?.seq ?? -1;
      return {
        text: kept.join(''),
        lastSeq: newest[0]?.seq ?? -1,
        earlier: first > 0 || state.cutBytes > 0 || newest.length > kept.length,
      };
    },
    async sendOutput(
      organizationId: string,
      runId: string,
      executionId: string,
      req: Request,
      res: Response,
      reader: OutputReader,
    ): Promise<boolean> {
      const state = await stateOf(organizationId, runId, executionId);
      if (state === undefined || serve === undefined) return false;
      await serve(req, res, state, reader);
      return true;
    },
  };
}
