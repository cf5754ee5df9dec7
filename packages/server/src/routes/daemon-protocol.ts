import type { Request } from 'express';
import { requireDaemon } from '../auth/daemon-signature.js';
import type { Runtime } from '../db/daemons.js';
import type { ReportedStatus } from '../db/executions.js';
import { reportStatus } from '../dispatch/executions.js';
import { nextAssignment } from '../dispatch/presence.js';
import type { Hub } from '../hub.js';
import { BodyCheck } from '../http/body.js';
import { daemonOf, inputOf } from '../http/context.js';
import { HttpProblem } from '../problems/problem.js';
import { checkRuntime } from './daemons.js';
import type { Route } from './registry.js';

const MAX_WAIT_S = 30;
const REPORTED: readonly ReportedStatus[] = ['running', 'succeeded', 'failed', 'timed_out', 'cancelled'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The signed daemon protocol (DECISIONS.md, Daemons): heartbeat, assignments, status reports. */
export function daemonProtocolRoutes(hub: Hub): Route[] {
  const signed = requireDaemon(hub.sql, hub.options.maxBodyBytes);
  return [
    {
      method: 'POST',
      path: '/api/v1/daemon/heartbeat',
      read: readHeartbeat,
      handlers: [
        signed,
        async (req, res) => {
          const serverTime = await hub.daemons.heartbeat(daemonOf(req).daemonId, inputOf<{ runtimes?: Runtime[] }>(req).runtimes);
          res.json({ serverTime: serverTime.toISOString() });
        },
      ],
    },
    {
      method: 'GET',
      path: '/api/v1/daemon/assignments/next',
      handlers: [
        signed,
        async (req, res) => {
          const { daemonId } = daemonOf(req);
          const wait = readWait(req);
          const closed = new AbortController();
          req.once('close', () => closed.abort());
          const assignment = await nextAssignment(hub, daemonId, wait, closed.signal);
          if (assignment === undefined) res.status(204).end();
          else res.json({ assignment });
        },
      ],
    },
    {
      method: 'POST',
      path: '/api/v1/daemon/executions/:executionId/status',
      read: readReport,
      handlers: [
        signed,
        async (req, res) => {
          const executionId = String(req.params.executionId);
          const report = inputOf<{ status: ReportedStatus; exitCode?: number; message?: string }>(req);
          const result = UUID.test(executionId)
            ? await reportStatus(hub.sql, daemonOf(req).daemonId, executionId.toLowerCase(), report.status, report)
            : ({ ok: false, reason: 'not_found' } as const);
          if (result.ok) {
            res.json({ executionId, status: result.status });
            return;
          }
          if (result.reason === 'not_found') throw new HttpProblem('execution_not_found', `This daemon has no execution ${executionId}.`);
          throw new HttpProblem('execution_finished', `The execution is already ${result.status}; its status no longer changes.`, {
            extensions: { executionStatus: result.status },
          });
        },
      ],
    },
  ];
}

function readWait(req: Request): number {
  const raw = req.query.wait;
  if (raw === undefined) return 0;
  // A string from the URL, or already a number where the OpenAPI validator coerced it.
  const text = typeof raw === 'number' || typeof raw === 'string' ? String(raw) : '';
  const wait = /^\d{1,2}$/.test(text) ? Number(text) : Number.NaN;
  if (!(wait >= 0 && wait <= MAX_WAIT_S)) {
    throw new HttpProblem('invalid_request', `wait must be a whole number of seconds from 0 to ${MAX_WAIT_S}.`, {
      issues: [{ pointer: '', code: 'request.type', message: `The query parameter wait must be 0 to ${MAX_WAIT_S}.` }],
    });
  }
  return wait;
}

function readHeartbeat(body: unknown): { runtimes?: Runtime[] } {
  if (body === undefined) return {};
  const check = new BodyCheck(body);
  const fields = check.object(['runtimes']);
  const runtimes = fields?.runtimes;
  if (runtimes !== undefined && !Array.isArray(runtimes)) check.add('/runtimes', 'request.type', 'runtimes must be a list of { provider, modes?, models? }.');
  if (Array.isArray(runtimes)) runtimes.forEach((runtime: unknown, index) => checkRuntime(check, runtime, `/runtimes/${index}`));
  check.done();
  return runtimes === undefined ? {} : { runtimes: runtimes as Runtime[] };
}

function readReport(body: unknown): { status: ReportedStatus; exitCode?: number; message?: string } {
  const check = new BodyCheck(body);
  const fields = check.object(['status', 'exitCode', 'message']);
  const status = fields && check.string(fields, 'status');
  if (status !== undefined && !REPORTED.includes(status as ReportedStatus)) {
    check.add('/status', 'request.enum', `status must be one of ${REPORTED.join(', ')}.`);
  }
  const exitCode = fields?.exitCode;
  if (exitCode !== undefined && exitCode !== null && !Number.isSafeInteger(exitCode)) check.add('/exitCode', 'request.type', 'exitCode must be an integer.');
  const message = fields && check.string(fields, 'message', { required: false, maxLength: 4000 });
  check.done();
  return {
    status: status as ReportedStatus,
    ...(typeof exitCode === 'number' ? { exitCode } : {}),
    ...(message === undefined ? {} : { message }),
  };
}
