// `hub run`: dispatch a manual run (POST /api/v1/manual-runs, shape B), print its id, and with
// --follow show its output until it ends.
import { randomUUID } from 'node:crypto';
import type { ManualRunRequest, WireSchema } from '@hub/schemas';
import { parseOptions, type Command, type Io } from '../command.js';
import { API_KEY_OPTION_HELP, CLIENT_ENV_HELP, CREDENTIALS_HELP, ORIGIN_ARGUMENT_HELP } from '../client-help.js';
import { namedProject, onlyProject } from '../deploy-project.js';
import { findRoot } from '../discovery.js';
import { CliError, UsageError } from '../errors.js';
import {
  hubRequest,
  isObject,
  printable,
  renderProblem,
  resolveCredential,
  resolveOrigin,
  type HubAnswer,
} from '../hub-client.js';
import { actorRefusal, allowedCandidate, chooseActor, firstActor, type ActorChoice } from '../run-actor.js';
import { followToEnd } from '../run-follow.js';
import { JsonLinesRunOutput, RunOutput } from '../run-output.js';
import { FOLLOW_EXIT_CODES, suggest } from '../run-view.js';

const COMMAND = 'hub run';

const help = `${COMMAND}: dispatch a manual run of a trigger, and follow its output if you like.

Usage: ${COMMAND} TRIGGER [origin] [--project SLUG] [--input TEXT] [--actor NAME]
               [--delivery-key KEY] [--follow] [--json] [--api-key KEY]

Dispatches the manual.run trigger TRIGGER of the project (POST /api/v1/manual-runs): the hub
finds it in the project's active configuration, else among the organization's triggers, and
sends the run's first step to its daemon. Prints the run id on standard output.

The project is --project, else the "project: SLUG" line of .hub/project.yml in the repository
here (the nearest directory up that holds .hub/ or .git; "hub deploy --project" writes it), else
the organization's only project; standard error then says which, and why.

Without --actor, the run is dispatched as you. Logged in with "hub login", you are the first of
your name at the hub, your e-mail and its local part (Ada Lovelace, ada@example.com, ada) that
the trigger's filters.from_users has: the hub's refusal of the first names the allowed ones, and
the run is dispatched once more as the one of yours among them. With an API key (HUB_API_KEY,
--api-key), which is no person's, the actor is your user name on this machine. Standard error
says which actor was chosen and why. When none of yours is allowed, the error lists the names
that are; run as one of them with --actor, or have yours added to filters.from_users.

--input is the run's manual input: leading key=value words set inputs the trigger declares
(a value may be double-quoted, with \\" inside), and the rest is the prompt.

Each dispatch sends a new random delivery key, so the same command twice starts two runs. To
make a retry safe, give your own --delivery-key: the hub starts one run per key, and answers a
repeat with the run the key started (as standard error then says).

With --follow, the output of each step is shown as the agent prints it, then a line with how
the run ended, and the exit code says how (below). The agent's output (its stdout and stderr,
in the order the daemon read them) goes to standard output as it is; the run id and the lines
about steps go to standard error. Ctrl-C stops following; the run goes on ("hub cancel RUN"
cancels it).

Arguments:
  TRIGGER         The name of a manual.run trigger
${ORIGIN_ARGUMENT_HELP}

Options:
  --project SLUG  The project (default: .hub/project.yml's, else the organization's only one)
  --input TEXT    The manual input: key=value words for the trigger's inputs, then the prompt
  --actor NAME    Who dispatches: a name in the trigger's filters.from_users (default: below)
  --delivery-key KEY
                  The dispatch's delivery key, 1 to 255 characters (default: a new random one)
  --follow        Show the run's output until it ends, and exit with its status
  --json          Print the hub's answer as JSON: { origin, replayed, actor, triggerRunId, ... };
                  with --follow, one JSON object a line: first { "type": "dispatched", ... }
                  with the same fields, then the events of "hub logs RUN --follow --json"
${API_KEY_OPTION_HELP}
  -h, --help      Show this help

${CREDENTIALS_HELP}
${CLIENT_ENV_HELP}
Examples:
  ${COMMAND} fix-tests --project app --input 'branch=release-2 the login test is flaky' --follow
  RUN=$(${COMMAND} nightly --project app --actor ci-bot --delivery-key "nightly-$(date +%F)")

Without --follow, exit codes:
  0    dispatched (or the delivery key's run answered again)
  1    the hub refused (its problem is printed on standard error) or could not be reached
  2    usage or configuration error: an unknown option, a bad argument, no credential for the hub

With --follow, ${FOLLOW_EXIT_CODES.replace('Exit codes:', 'exit codes:')}`;

type Dispatched = WireSchema<'ManualRunB'>;

export const run: Command = {
  name: 'run',
  summary: 'Dispatch a manual run; --follow shows its output',
  async run(args, io) {
    const { values, positionals } = parseOptions(
      COMMAND,
      args,
      {
        project: { type: 'string' },
        input: { type: 'string' },
        actor: { type: 'string' },
        'delivery-key': { type: 'string' },
        follow: { type: 'boolean' },
        json: { type: 'boolean' },
        'api-key': { type: 'string' },
      },
      2,
    );
    if (values.help) {
      io.stdout.write(help);
      return 0;
    }
    const [trigger, originArgument] = positionals;
    if (trigger === undefined)
      throw new UsageError('Give the trigger to run, such as "hub run fix-tests --project app".', COMMAND);
    if (values.project !== undefined && values.project.trim() === '')
      throw new UsageError('--project needs a project slug.', COMMAND);
    const origin = await resolveOrigin(originArgument, io);
    const { token } = await resolveCredential(origin, values['api-key'], io);
    const projectSlug = values.project ?? (await findProject({ origin, token }, io));
    const choice = await chooseActor(values.actor, { origin, token }, io);
    const request: ManualRunRequest = {
      projectSlug,
      trigger,
      actor: values.actor ?? (firstActor(choice)?.actor as string),
      deliveryKey: values['delivery-key'] ?? `hub-cli-${randomUUID()}`,
      ...(values.input === undefined ? {} : { input: values.input }),
    };
    const { dispatched, replayed, actor, why } = await dispatch(origin, token, request, choice);
    const runId = printable(dispatched.triggerRunId);
    if (values.json && !values.follow) {
      io.stdout.write(`${JSON.stringify({ origin, replayed, actor, ...dispatched }, null, 2)}\n`);
      return 0;
    }
    if (replayed)
      io.stderr.write(
        `The delivery key ${printable(request.deliveryKey)} was used before: this is the run it started, not a new one.\n`,
      );
    const as = why === undefined ? '' : ` as ${printable(actor)} (${why})`;
    const page = `The run's page in the dashboard: ${origin}/runs/${encodeURIComponent(runId)}\n`;
    if (!values.follow) {
      io.stdout.write(`${runId}\n`);
      io.stderr.write(
        `Run ${runId} dispatched${as}. Follow it: ${suggest(`hub logs ${runId} --follow`, originArgument)}\n${page}`,
      );
      return 0;
    }
    io.stderr.write(
      `Run ${runId} dispatched${as}; following its output (Ctrl-C stops following; the run goes on).\n${page}`,
    );
    if (values.json)
      io.stdout.write(`${JSON.stringify({ type: 'dispatched', origin, replayed, actor, ...dispatched })}\n`);
    const out = values.json ? new JsonLinesRunOutput(io, origin) : new RunOutput(io);
    return followToEnd({ origin, token, stop: io.stopSignal() }, runId, out, originArgument);
  },
};

/** Without --project: the one .hub/project.yml names in the repository here, else the organization's only one; said on standard error. */
async function findProject(session: { origin: string; token: string }, io: Io): Promise<string> {
  const root = await findRoot(undefined).catch(() => undefined);
  const chosen =
    (root === undefined ? undefined : await namedProject(undefined, root)) ??
    (await onlyProject(session, `${COMMAND} needs a project`, COMMAND, false));
  io.stderr.write(`Project ${printable(chosen.slug)} (${chosen.why}).\n`);
  return chosen.slug;
}

/**
 * POST /api/v1/manual-runs. An actor chosen for a logged-in person that the trigger refuses is
 * replaced, once, by the first of their names that the refusal's allowedActors has: the refusal
 * wrote nothing, so the same delivery key starts the one run.
 */
async function dispatch(
  origin: string,
  token: string,
  request: ManualRunRequest,
  choice: ActorChoice,
): Promise<{ dispatched: Dispatched; replayed: boolean; actor: string; why: string | undefined }> {
  let answer = await post(origin, token, request);
  let why = firstActor(choice)?.why;
  let allowed = allowedActors(answer);
  const retry = allowed === undefined ? undefined : allowedCandidate(choice, allowed);
  if (retry !== undefined && retry.actor !== request.actor) {
    request = { ...request, actor: retry.actor };
    why = retry.why;
    answer = await post(origin, token, request);
    allowed = allowedActors(answer);
  }
  if (answer.status !== 200) {
    if (allowed === undefined)
      throw new CliError(`${renderProblem(answer)}${hint(answer, choice, request.actor, why)}`);
    const requestId = isObject(answer.body) && typeof answer.body.requestId === 'string' ? answer.body.requestId : '';
    throw new CliError(
      `${actorRefusal(request.trigger, allowed, choice, request.actor)}${requestId ? `\nRequest id: ${printable(requestId)}` : ''}`,
    );
  }
  if (!isObject(answer.body) || typeof answer.body.triggerRunId !== 'string')
    throw new CliError(
      `The hub at ${origin} answered the dispatch without a run id (triggerRunId): is it older than this hub command?`,
    );
  return {
    dispatched: answer.body as Dispatched,
    replayed: answer.headers.get('idempotent-replayed') === 'true',
    actor: request.actor,
    why,
  };
}

/** For a defaulted actor: how to give another, when a hub that does not name the allowed actors refused it, or a reused delivery key may be why. */
function hint(answer: HubAnswer, choice: ActorChoice, actor: string, why: string | undefined): string {
  const code = isObject(answer.body) ? answer.body.code : undefined;
  if (choice.kind === 'given' || why === undefined) return '';
  if (code === 'actor_forbidden')
    return `\nThe actor was ${why}, ${printable(actor)}: give one the trigger allows (its filters.from_users) with --actor NAME.`;
  if (code === 'delivery_key_reused' && choice.kind === 'person' && choice.candidates.length > 1)
    return `\nThe actor was ${why}, ${printable(actor)}: if the key's run was dispatched as another of your names, give that one with --actor NAME.`;
  return '';
}

function post(origin: string, token: string, request: ManualRunRequest): Promise<HubAnswer> {
  return hubRequest(origin, token, 'POST', '/api/v1/manual-runs', JSON.stringify(request));
}

/** The names an actor_forbidden refusal says the trigger allows; undefined for any other answer, or a hub that does not say. */
function allowedActors(answer: HubAnswer): string[] | undefined {
  if (answer.status !== 403 || !isObject(answer.body) || answer.body.code !== 'actor_forbidden') return undefined;
  const list = answer.body.allowedActors;
  return Array.isArray(list) && list.every((name) => typeof name === 'string') ? list : undefined;
}
