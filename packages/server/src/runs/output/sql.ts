import type { Db } from '../../db/connect.js';
import { atomically } from '../../db/transaction.js';

/** The first and the last this many bytes of an execution's output are kept; what lies between is cut. */
export const OUTPUT_HEAD_BYTES = 5 * 1024 * 1024;
export const OUTPUT_TAIL_BYTES = 5 * 1024 * 1024;

export interface OutputChunk {
  seq: number;
  stream: 'stdout' | 'stderr';
  at: string;
  text: string;
}

export interface StoredChunk {
  seq: number;
  stream: 'stdout' | 'stderr';
  at: Date;
  text: string;
}

/** Where an execution stands, for a reader: its status and where its output was cut. */
export interface OutputState {
  executionId: string;
  triggerRunId: string;
  status: string;
  exitCode: number | null;
  message: string | null;
  /** The last seq of the head once the head is full; chunks after it and before the next kept one were cut. */
  headEnd: number | null;
  cutBytes: number;
}

/**
 * Agents' output: appended by their daemons (idempotently, by seq), read by people. Appends of
 * one execution are taken in turn (its row FOR UPDATE), which keeps the head/tail accounting
 * exact; the insert's trigger NOTIFYs readers on every instance.
 */
export class OutputRepository {
  constructor(private readonly sql: Db) {}

  /** Stores the chunks not stored yet; the seq that comes next, or undefined when the execution is not the daemon's. */
  async append(daemonId: string, executionId: string, chunks: OutputChunk[]): Promise<number | undefined> {
    return atomically(this.sql, async (tx) => {
      const [execution] = await tx<{ headBytes: string; headEnd: number | null; tailBytes: string; lastSeq: number }[]>`
        select output_head_bytes as "headBytes", output_head_end as "headEnd", output_tail_bytes as "tailBytes",
          coalesce((select max(seq) from execution_output where execution_id = e.id), -1) as "lastSeq"
        from executions e where e.id = ${executionId} and e.daemon_id = ${daemonId}
        for update`;
      if (execution === undefined) return undefined;
      let headBytes = Number(execution.headBytes);
      let tailBytes = Number(execution.tailBytes);
      let { headEnd, lastSeq } = execution;
      // Chunks come in order; one at or below the last stored seq was stored by an earlier try.
      const fresh = chunks.filter((chunk) => chunk.seq > execution.lastSeq).sort((a, b) => a.seq - b.seq);
      if (fresh.length === 0) return lastSeq + 1;
      const sizes = fresh.map((chunk) => Buffer.byteLength(chunk.text, 'utf8'));
      fresh.forEach((chunk, i) => {
        const bytes = sizes[i] as number;
        if (headEnd === null && headBytes + bytes <= OUTPUT_HEAD_BYTES) headBytes += bytes;
        else {
          if (headEnd === null) headEnd = lastSeq;
          tailBytes += bytes;
        }
        lastSeq = chunk.seq;
      });
      await tx`
        insert into execution_output (execution_id, seq, stream, at, text, bytes)
        select ${executionId}, * from unnest(${fresh.map((chunk) => chunk.seq)}::int[], ${fresh.map((chunk) => chunk.stream)}::text[],
          ${fresh.map((chunk) => chunk.at)}::timestamptz[], ${fresh.map((chunk) => chunk.text)}::text[], ${sizes}::int[])
        on conflict do nothing`;
      let cut = 0;
      if (tailBytes > OUTPUT_TAIL_BYTES) {
        // The tail's oldest chunks go until it fits again.
        const [removed] = await tx<{ bytes: string }[]>`
          with tail as (
            select seq, bytes, sum(bytes) over (order by seq) as running
            from execution_output where execution_id = ${executionId} and seq > ${headEnd as number}
          ), doomed as (
            delete from execution_output o using tail
            where o.execution_id = ${executionId} and o.seq = tail.seq and tail.running - tail.bytes < ${tailBytes - OUTPUT_TAIL_BYTES}
            returning o.bytes
          )
          select coalesce(sum(bytes), 0) as bytes from doomed`;
        cut = Number(removed?.bytes ?? 0);
        tailBytes -= cut;
      }
      await tx`
        update executions set output_head_bytes = ${headBytes}, output_head_end = ${headEnd}, output_tail_bytes = ${tailBytes},
          output_cut_bytes = output_cut_bytes + ${cut}
        where id = ${executionId}`;
      return lastSeq + 1;
    });
  }

  /**
   * The execution of a run of the organization (`triggerRunId` too, when given), with where its
   * output stands; each row by its primary key alone (see runs/run-view.ts, byId).
   */
  async state(organizationId: string, executionId: string, triggerRunId?: string): Promise<OutputState | undefined> {
    const [row] = await this.sql<(Omit<OutputState, 'cutBytes'> & { cutBytes: string })[]>`
      select e.id as "executionId", e.trigger_run_id as "triggerRunId", e.status, e.exit_code as "exitCode", e.message,
        e.output_head_end as "headEnd", e.output_cut_bytes as "cutBytes"
      from executions e
      where e.id = ${executionId} and (select organization_id from trigger_runs where id = e.trigger_run_id) = ${organizationId}`;
    // The run compared here: beside the primary key's condition, it would let the planner pick the run's index.
    if (row === undefined || (triggerRunId !== undefined && row.triggerRunId !== triggerRunId.toLowerCase()))
      return undefined;
    return { ...row, cutBytes: Number(row.cutBytes) };
  }

  /** The execution's status and how it ended, if it has. */
  async status(
    executionId: string,
  ): Promise<{ status: string; exitCode: number | null; message: string | null } | undefined> {
    const [row] = await this.sql<{ status: string; exitCode: number | null; message: string | null }[]>`
      select status, exit_code as "exitCode", message from executions where id = ${executionId}`;
    return row;
  }

  /** Up to `limit` chunks after `afterSeq`, in order. */
  async chunks(executionId: string, afterSeq: number, limit: number): Promise<StoredChunk[]> {
    return this.sql<StoredChunk[]>`
      select seq, stream, at, text from execution_output
      where execution_id = ${executionId} and seq > ${afterSeq}
      order by seq limit ${limit}`;
  }
}
