// `hub cancel`: ask the hub to cancel a run (POST /api/v1/runs/{runId}/cancel); its daemon stops it.
import { parseOptions, type Command } from '../command.js';
import { API_KEY_OPTION_HELP, CLIENT_ENV_HELP, CREDENTIALS_HELP, ORIGIN_ARGUMENT_HELP } from '../client-help.js';
import { CliError } from '../errors.js';
import { exitCodes } from '../help.js';
import { hubRequest, isObject, printable, renderProblem, resolveCredential, resolveOrigin } from '../hub-client.js';
import { readRun, runIdArgument, runPath } from '../run-api.js';
import { suggest } from '../run-view.js';

const COMMAND = 'hub cancel';

const help = `${COMMAND}: cancel a run.

Usage: ${COMMAND} RUN [origin] [--json] [--api-key KEY]

Asks the hub to cancel the run. The daemon running its current step hears of it within a
second, stops the agent's whole process tree and reports the step cancelled; the run then ends
cancelled, and its later steps never start. The hub records who cancelled it. Asking again is
harmless. "hub logs RUN --follow" shows the run until it has stopped.

With --json, one object that names the hub, with the run as the hub answered the cancellation
(as "GET /api/v1/runs/RUN" does): "cancelRequestedAt" set, and "status" cancelled when no daemon
had taken its step yet, else still running until the daemon has stopped it:

  { "origin": "https://hub.example.com", "run": { "triggerRunId": "...", "status": "running",
    "cancelRequestedAt": "...", ... } }

A run that had already ended is an error as without --json: nothing on standard output.

Arguments:
  RUN             The run id ("hub run" prints it; "hub runs" lists them)
${ORIGIN_ARGUMENT_HELP}

Options:
  --json          Print JSON (above) instead of a sentence
${API_KEY_OPTION_HELP}
  -h, --help      Show this help

${CREDENTIALS_HELP}
${CLIENT_ENV_HELP}
Example:
  ${COMMAND} 8f2a6c4e-1b3d-4e5f-9a7b-0c2d4e6f8a1b

${exitCodes('cancellation requested', 'the run had already ended, or the hub refused (its problem is printed on\n     standard error) or could not be reached', ',\n     no credential for the hub')}`;

export const cancel: Command = {
  name: 'cancel',
  summary: 'Cancel a run',
  async run(args, io) {
    const { values, positionals } = parseOptions(
      COMMAND,
      args,
      { json: { type: 'boolean' }, 'api-key': { type: 'string' } },
      2,
    );
    if (values.help) {
      io.stdout.write(help);
      return 0;
    }
    const runId = runIdArgument(positionals[0], COMMAND);
    const origin = await resolveOrigin(positionals[1], io);
    const { token } = await resolveCredential(origin, values['api-key'], io);
    const answer = await hubRequest(origin, token, 'POST', `${runPath(runId)}/cancel`, '{}');
    if (answer.status === 409 && isObject(answer.body) && answer.body.code === 'run_finished') {
      const status = typeof answer.body.runStatus === 'string' ? printable(answer.body.runStatus) : 'ended';
      throw new CliError(`Run ${runId} has already ended (${status.replace('_', ' ')}); there is nothing to cancel.`);
    }
    if (answer.status !== 202) throw new CliError(renderProblem(answer));
    if (values.json) {
      const run = readRun(answer.body);
      if (run === undefined) throw new CliError(`The hub at ${origin} answered with something other than a run.`);
      io.stdout.write(`${JSON.stringify({ origin, run }, null, 2)}\n`);
      return 0;
    }
    // A run whose step no daemon had taken yet is cancelled by the hub at once.
    const ended = isObject(answer.body) && answer.body.status === 'cancelled';
    io.stdout.write(
      ended
        ? `Run ${runId} was cancelled.\n`
        : `Cancellation requested for run ${runId}; the daemon stops it within seconds. To see it end: ${suggest(`hub logs ${runId} --follow`, positionals[1])}\n`,
    );
    return 0;
  },
};
