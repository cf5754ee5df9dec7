// `hub login` as the hub sees it: the device authorization grant (RFC 8628), approved in the
// dashboard's store (as the /device page does) and redeemed; and a configuration whose one manual
// trigger runs on a named daemon, for the tests that need a run.
import { expect } from 'vitest';
import { call, type Answer } from './client.js';
import type { RunningHub } from './hub.js';
import type { TestDaemon } from './daemon.js';

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** A form POST of the OAuth endpoints. */
export const oauthForm = (
  hub: Pick<RunningHub, 'url'>,
  path: string,
  fields: Record<string, string>,
): Promise<Answer> =>
  call(hub, 'POST', path, {
    raw: new URLSearchParams(fields).toString(),
    contentType: 'application/x-www-form-urlencoded',
  });

/** A CLI credential of `accountId` in `organizationId`: started, approved through `approve`, redeemed. */
export async function cliLogin(
  hub: Pick<RunningHub, 'url'>,
  store: {
    approveDevice(accountId: string, userCode: string, organizationId: string, address: string): Promise<unknown>;
  },
  accountId: string,
  organizationId: string,
): Promise<string> {
  const started = await oauthForm(hub, '/oauth/device_authorization', { client_id: 'hub-cli', hostname: 'laptop' });
  expect(started.status, started.text).toBe(200);
  expect(await store.approveDevice(accountId, started.body.user_code, organizationId, '127.0.0.1')).toBe('approved');
  const token = await oauthForm(hub, '/oauth/token', {
    grant_type: GRANT,
    device_code: started.body.device_code,
    client_id: 'hub-cli',
  });
  expect(token.status, token.text).toBe(200);
  return token.body.access_token as string;
}

/** One manual trigger, `fix-tests` (from the actor `dev-lead`), whose one step runs on `daemon`. */
export const manualConfiguration = (daemon: string, maxRuntime = '1h'): string => `
environments:
  - { name: laptop, kind: daemon, daemon: ${daemon}, cwd: /tmp/work }
triggers:
  - name: fix-tests
    on: { manual.run: {} }
    max_runtime: ${maxRuntime}
    filters: { from_users: [dev-lead] }
    steps:
      - { id: fix, environment: laptop, agent: { provider: claude }, prompt: [ { text: "Fix {{ prompt }}" } ] }
`;

/** A run of `fix-tests` whose execution `daemon` took and started, with one line of output. */
export async function startedRun(
  hub: Pick<RunningHub, 'url'>,
  key: string,
  projectSlug: string,
  daemon: TestDaemon,
  deliveryKey: string,
): Promise<{ runId: string; executionId: string; path: string }> {
  const answer = await call(hub, 'POST', '/api/v1/manual-runs', {
    token: key,
    body: { projectSlug, trigger: 'fix-tests', actor: 'dev-lead', deliveryKey },
  });
  expect(answer.status, answer.text).toBe(200);
  const runId = answer.body.triggerRunId as string;
  const run = await call(hub, 'GET', `/api/v1/runs/${runId}`, { token: key });
  const executionId = run.body.executions[0].executionId as string;
  for (let attempt = 0; attempt < 5; attempt++) {
    const next = await daemon.next(5);
    if (next.status === 200 && next.body.assignment?.executionId === executionId) break;
  }
  expect((await daemon.report(executionId, 'running')).status).toBe(200);
  const chunks = [{ seq: 0, stream: 'stdout', at: new Date().toISOString(), text: 'working\n' }];
  const sent = await daemon.signed('POST', `/api/v1/daemon/executions/${executionId}/output`, { chunks });
  expect(sent.status, sent.text).toBe(200);
  return { runId, executionId, path: `/api/v1/runs/${runId}/executions/${executionId}/output` };
}
