import type { Request } from 'express';
import type { Sql } from 'postgres';
import { bearer, DEFAULT_CLI_CREDENTIAL_EXPIRY, unauthorized } from '../../auth/api-key.js';
import type { Hub } from '../../hub.js';
import { authOf, contextOf } from '../../http/context.js';
import { handle, type Call, type Handlers } from '../../http/operation.js';
import { HttpProblem } from '../../problems/problem.js';
import { DEFAULT_TIMING } from '../protocol/presence.js';
import { dispatchHinted } from './hinted.js';
import { DispatchHints } from './hints.js';
import type { Dispatched, Dispatcher, DispatchRefusal } from './model.js';
import { AssignmentNotices } from './notices.js';
import type { DispatchRequest } from './request.js';
import { dispatchPrefetch, startRun } from './start.js';

/**
 * A dispatch this instance has hints for is one statement (runs/dispatch/hinted.ts); otherwise two: the key check, which also reads the trigger and any earlier
 * dispatch with the delivery key, and one write. For that, a body announced at most 16 KiB long
 * (a dispatch is typically 150 to 500 bytes; a long prompt in `input` may be more) is parsed
 * before the key check; a larger or chunked one only after it, and the trigger is then read on its
 * own (`RunRepository.lookup`): a client without a key makes the hub parse no more than 16 KiB.
 */
const early = {
  bodyFirst: 16 * 1024,
  prefetch: (sql: Sql, req: Request) => dispatchPrefetch(sql, req.body),
};

/** What dispatches need of the hub: its database, clocks, hints, and the daemons' wake-ups. */
export function dispatcherOf(hub: Hub): Dispatcher {
  // On the key-check connections, whose commits do not wait for the disk (see AssignmentNotices).
  const notices = new AssignmentNotices(hub.authSql, hub.log);
  return {
    sql: hub.sql,
    timing: hub.options.timing ?? DEFAULT_TIMING,
    cliCredentials: hub.options.cliCredentials ?? DEFAULT_CLI_CREDENTIAL_EXPIRY,
    // Per instance: what its dispatches learned, for the one-statement path (runs/dispatch/hinted.ts).
    hints: new DispatchHints(),
    wake: (daemonId) => notices.wake(daemonId),
  };
}

/** Manual runs (section 4.8): one dispatch, answered in two shapes. */
export function dispatchHandlers(hub: Hub): Handlers {
  const dispatcher = dispatcherOf(hub);
  const dispatch = async ({ req, res, body }: Call<'dispatchManualRunA' | 'dispatchManualRunB'>) => {
    const { organizationId, keyId } = authOf(req);
    const result = await startRun(dispatcher, {
      organizationId,
      apiKeyId: keyId,
      token: bearer(req.get('authorization')),
      request: body,
      prefetched: contextOf(req).prefetched,
    });
    if (!result.ok) throw problemOf(result.refusal, body);
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    return result.dispatched;
  };
  // Before the key check: a run started in one statement from hints, or false for the exact path.
  const attempt = async (
    { req, res, body }: Call<'dispatchManualRunA' | 'dispatchManualRunB'>,
    answer: (dispatched: Dispatched) => object,
  ) => {
    const token = bearer(req.get('authorization'));
    const dispatched = token === undefined ? undefined : await dispatchHinted(dispatcher, { token, request: body });
    if (dispatched === undefined) return false;
    res.json(answer(dispatched));
    return true;
  };
  return {
    dispatchManualRunA: handle(async (call) => void call.res.json(answerA(await dispatch(call))), {
      ...early,
      attempt: (call) => attempt(call, answerA),
    }),
    dispatchManualRunB: handle(async (call) => void call.res.json(answerB(await dispatch(call))), {
      ...early,
      attempt: (call) => attempt(call, answerB),
    }),
  };
}

/** A refused dispatch's answer. */
function problemOf(refusal: DispatchRefusal, request: DispatchRequest): HttpProblem {
  switch (refusal.reason) {
    case 'delivery_key_reused':
      return new HttpProblem(
        'delivery_key_reused',
        `The delivery key "${request.deliveryKey}" was used for a different dispatch; use a new key for a new run.`,
      );
    case 'project_not_found':
      return new HttpProblem('project_not_found', `The organization has no active project "${request.projectSlug}".`);
    case 'trigger_not_found':
      return new HttpProblem(
        'trigger_not_found',
        `Neither the active configuration of "${request.projectSlug}" nor the organization's triggers have a manual.run trigger "${request.trigger}"${refusal.didYouMean || '.'}`,
      );
    case 'trigger_disabled':
      return new HttpProblem('trigger_disabled', `The trigger "${refusal.trigger}" is disabled.`);
    case 'version_not_current':
      return new HttpProblem(
        'version_not_current',
        `The revision ${refusal.expectedVersionId} is no longer active; ${refusal.activeVersionId} is.`,
        { extensions: { activeVersionId: refusal.activeVersionId } },
      );
    case 'actor_forbidden':
      // Who may run it, so that a client can say so (or pick among its person's names): the
      // caller may dispatch in the organization already. Shape A's body stays the spec's own.
      return new HttpProblem('actor_forbidden', `"${request.actor}" is not in the trigger's filters.from_users.`, {
        extensions: { allowedActors: refusal.allowlist },
      });
    case 'input_invalid':
      return new HttpProblem('invalid_request', "The input does not fill the trigger's inputs; see issues.", {
        issues: refusal.issues,
      });
    case 'no_steps':
      return new HttpProblem('trigger_not_found', `The trigger "${refusal.trigger}" has no steps.`);
    case 'key_revoked':
      return unauthorized();
    case 'daemon_offline':
      return new HttpProblem(
        'daemon_offline',
        `The daemon "${refusal.daemon}" that runs the first step is ${refusal.enrolled ? 'offline' : 'not enrolled'}.`,
      );
  }
}

function answerA(dispatched: Dispatched) {
  const { deliveryKey, triggerId, executionId, daemonId, agentId } = dispatched;
  return { deliveryKey, triggerId, executionId, status: 'spawning', daemonId, agentId };
}

function answerB(dispatched: Dispatched) {
  const { deliveryKey, receiptId, triggerRunId, triggerName } = dispatched;
  return {
    deliveryKey,
    providerEventReceiptId: receiptId,
    triggerRunId,
    configuredTriggerName: triggerName,
    workflowStatus: 'running',
  };
}
