import { isUuid } from '@hub/schemas';
import { OutputRepository } from '../output/sql.js';
import { reportStatus } from './report.js';
import { nextAssignment } from './presence.js';
import { DaemonRepository } from '../../daemons/index.js';
import type { Hub } from '../../hub.js';
import { daemonOf } from '../../http/context.js';
import { handle, type Handlers } from '../../http/operation.js';
import { HttpProblem } from '../../problems/problem.js';

/** The signed daemon protocol (DECISIONS.md, Daemons): heartbeat, assignments and cancellations, output, status reports, a clean stop. */
export function daemonProtocolHandlers(hub: Hub): Handlers {
  const output = new OutputRepository(hub.sql);
  return {
    daemonHeartbeat: handle(async ({ req, res, body }) => {
      const serverTime = await new DaemonRepository(hub.sql).heartbeat(daemonOf(req).daemonId, body?.runtimes);
      res.json({ serverTime: serverTime.toISOString() });
    }),
    nextAssignment: handle(async ({ req, res, query }) => {
      const closed = new AbortController();
      // The response's close: the request's own has come and gone once its (signed) body was read.
      res.once('close', () => closed.abort());
      const answer = await nextAssignment(
        hub,
        daemonOf(req).daemonId,
        { waitS: query.wait ?? 0, capacity: query.capacity ?? 1 },
        closed.signal,
      );
      if (answer !== undefined) res.json(answer);
      else {
        // A stopping instance answers at once: the daemon comes back in a second, to another instance.
        if (hub.wakeups?.stopping === true) res.setHeader('Retry-After', '1');
        res.status(204).end();
      }
    }),
    appendExecutionOutput: handle(async ({ req, res, params, body }) => {
      const { executionId } = params;
      const nextSeq = isUuid(executionId)
        ? await output.append(daemonOf(req).daemonId, executionId.toLowerCase(), body.chunks)
        : undefined;
      if (nextSeq === undefined)
        throw new HttpProblem('execution_not_found', `This daemon has no execution ${executionId}.`);
      res.json({ executionId, nextSeq });
    }),
    daemonOffline: handle(async ({ req, res }) => {
      await new DaemonRepository(hub.sql).stopped(daemonOf(req).daemonId);
      res.status(204).end();
    }),
    reportExecutionStatus: handle(async ({ req, res, params, body }) => {
      const { executionId } = params;
      const detail = {
        ...(typeof body.exitCode === 'number' ? { exitCode: body.exitCode } : {}),
        ...(body.message === undefined ? {} : { message: body.message }),
      };
      const result = isUuid(executionId)
        ? await reportStatus(hub.sql, daemonOf(req).daemonId, executionId.toLowerCase(), body.status, detail)
        : ({ ok: false, reason: 'not_found' } as const);
      if (result.ok) {
        res.json({ executionId, status: result.status });
        return;
      }
      if (result.reason === 'not_found')
        throw new HttpProblem('execution_not_found', `This daemon has no execution ${executionId}.`);
      throw new HttpProblem(
        'execution_finished',
        `The execution is already ${result.status}; its status no longer changes.`,
        {
          extensions: { executionStatus: result.status },
        },
      );
    }),
  };
}
