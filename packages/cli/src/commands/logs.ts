// `hub logs`: the output of a run's executions in step order: what there is so far, or with
// --follow live until the run ends.
import type { Run } from '@hub/schemas';
import { parseOptions, type Command } from '../command.js';
import { API_KEY_OPTION_HELP, CLIENT_ENV_HELP, CREDENTIALS_HELP, ORIGIN_ARGUMENT_HELP } from '../client-help.js';
import { resolveCredential, resolveOrigin } from '../hub-client.js';
import { fetchRun, openOutput, runIdArgument, type Session } from '../run-api.js';
import { followToEnd } from '../run-follow.js';
import { JsonLinesRunOutput, RunOutput } from '../run-output.js';
import { FOLLOW_EXIT_CODES, runStatusLine, stepEnd, stepHeader, suggest } from '../run-view.js';

const COMMAND = 'hub logs';
/** A plain-text answer that stalls this long is given up. */
const IDLE_MS = 30_000;

const help = `${COMMAND}: show the output of a run, step by step; --follow shows it live until the run ends.

Usage: ${COMMAND} RUN [origin] [--follow] [--json] [--api-key KEY]

Shows what the agent of each step of the run printed, in step order. The agent's output (its
stdout and stderr, in the order the daemon read them) goes to standard output exactly as it
came, as it arrives, so "${COMMAND} RUN > log.txt" keeps it whole; a line before each step
(which step, on which daemon) and after it (how it ended), and a last line with the run's
status, go to standard error. The hub keeps the first and the last 5 MiB of a step's output,
and says where it cut.

Without --follow, shows the output so far and exits.

With --follow, shows each step's output live (Server-Sent Events) and moves to the next step
when one ends, until the run ends; the exit code then says how it ended (below). A dropped
connection or a restarting hub is retried with backoff (said once on standard error) and the
output resumes where it stopped, each line once; after 5 minutes without reaching the hub it
gives up. Ctrl-C stops following; the run goes on ("hub cancel RUN" cancels it).

With --json, the output so far as one object, once all of it has arrived: the run as the hub
answers it (as "GET /api/v1/runs/RUN" does), and each step's output as text (read as UTF-8: a
byte that is not becomes U+FFFD; for the exact bytes, leave out --json), in step order:

  { "origin": "https://hub.example.com", "run": { "triggerRunId": "...", "status": ..., ... },
    "steps": [ { "stepId": "fix", "executionId": "...", "status": "succeeded",
                 "output": "..." } ] }

With --follow --json, one JSON object a line (NDJSON) as things happen, and standard error as
without --json. A step starts, its output as it arrives (in pieces, as the hub sends them), a
cut the hub made, the step ends, and at last the run as it ended (the exit code as below):

  { "type": "step", "stepId": "fix", "executionId": "...", "daemon": "dev-box" }
  { "type": "output", "executionId": "...", "text": "..." }
  { "type": "cut", "executionId": "...", "bytes": 1048576 }
  { "type": "step_end", "stepId": "fix", "executionId": "...", "status": "succeeded",
    "exitCode": 0, "message": null }
  { "type": "run", "origin": "https://hub.example.com", "run": { ... } }

Ctrl-C stops following before the "run" line.

Arguments:
  RUN             The run id ("hub run" prints it; "hub runs" lists them)
${ORIGIN_ARGUMENT_HELP}

Options:
  --follow        Show the output live until the run ends, and exit with its status
  --json          Print JSON (above): the run and its output so far, or with --follow
                  one event a line
${API_KEY_OPTION_HELP}
  -h, --help      Show this help

${CREDENTIALS_HELP}
${CLIENT_ENV_HELP}
Example:
  ${COMMAND} 8f2a6c4e-1b3d-4e5f-9a7b-0c2d4e6f8a1b --follow

Without --follow, exit codes:
  0    shown (whatever the run's status)
  1    the hub refused (its problem is printed on standard error) or could not be reached
  2    usage or configuration error: an unknown option, a bad argument, no credential for the hub

With --follow, ${FOLLOW_EXIT_CODES.replace('Exit codes:', 'exit codes:')}`;

export const logs: Command = {
  name: 'logs',
  summary: "Show a run's output; --follow shows it live",
  async run(args, io) {
    const { values, positionals } = parseOptions(
      COMMAND,
      args,
      { follow: { type: 'boolean' }, json: { type: 'boolean' }, 'api-key': { type: 'string' } },
      2,
    );
    if (values.help) {
      io.stdout.write(help);
      return 0;
    }
    const runId = runIdArgument(positionals[0], COMMAND);
    const originArgument = positionals[1];
    const origin = await resolveOrigin(originArgument, io);
    const { token } = await resolveCredential(origin, values['api-key'], io);
    if (values.follow)
      return followToEnd(
        { origin, token, stop: io.stopSignal() },
        runId,
        values.json ? new JsonLinesRunOutput(io, origin) : new RunOutput(io),
        originArgument,
      );
    if (values.json) {
      const report = await soFarAsJson({ origin, token, stop: new AbortController().signal }, runId);
      io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      return 0;
    }
    const out = new RunOutput(io);
    const run = await showSoFar({ origin, token, stop: new AbortController().signal }, runId, out);
    out.note(
      run.status === 'running'
        ? `${runStatusLine(run).trimEnd()} Follow it: ${suggest(`hub logs ${runId} --follow`, originArgument)}\n`
        : runStatusLine(run),
    );
    return 0;
  },
};

/** The run and each execution's output so far, read whole, for --json. */
async function soFarAsJson(
  session: Session,
  runId: string,
): Promise<{
  origin: string;
  run: Run;
  steps: { stepId: string; executionId: string; status: string; output: string }[];
}> {
  const run = await fetchRun(session, runId);
  const steps = [];
  for (const { stepId, executionId, status } of run.executions) {
    const chunks: Uint8Array[] = [];
    for await (const bytes of await openOutput(session, runId, executionId, { accept: 'text/plain', idleMs: IDLE_MS }))
      chunks.push(bytes);
    steps.push({ stepId, executionId, status, output: Buffer.concat(chunks).toString('utf8') });
  }
  return { origin: session.origin, run, steps };
}

/** Each execution's output so far, streamed through as it arrives. */
async function showSoFar(session: Session, runId: string, out: RunOutput): Promise<Run> {
  const run = await fetchRun(session, runId);
  for (const execution of run.executions) {
    out.note(stepHeader(execution));
    for await (const bytes of await openOutput(session, runId, execution.executionId, {
      accept: 'text/plain',
      idleMs: IDLE_MS,
    }))
      await out.agent(bytes);
    if (execution.status !== 'spawning' && execution.status !== 'running')
      out.note(stepEnd(execution.stepId, execution));
  }
  return run;
}
