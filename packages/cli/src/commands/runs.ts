// `hub runs`: the organization's runs, newest first (GET /api/v1/runs), as a table or JSON.
import type { Run } from '@hub/schemas';
import { parseOptions, type Command } from '../command.js';
import { API_KEY_OPTION_HELP, CLIENT_ENV_HELP, CREDENTIALS_HELP, ORIGIN_ARGUMENT_HELP } from '../client-help.js';
import { CliError, UsageError } from '../errors.js';
import { exitCodes } from '../help.js';
import { isObject, resolveCredential, resolveOrigin } from '../hub-client.js';
import { ask, failure, readRun, type Session } from '../run-api.js';
import { RUN_SOURCES, RUN_STATUSES, runsTable, suggest } from '../run-view.js';

const COMMAND = 'hub runs';
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

const help = `${COMMAND}: list the organization's runs, newest first.

Usage: ${COMMAND} [origin] [--project SLUG] [--trigger NAME] [--status STATUS] [--source SOURCE]
                [--limit N | --all] [--cursor CURSOR] [--json] [--api-key KEY]

For people, a table: the run id, trigger, project, actor, source (manual, schedule or github:
what started the run), status ("cancelling" for a running
run whose cancellation was asked for), when it started (local time) and how long it took (or
has been running). Filters combine. A page holds --limit runs; when there are more, standard
error says how to see them. With --json, one object that names the hub, with the runs as the
hub answers them (as "GET /api/v1/runs/RUN" does) and the cursor of the next page (null on the
last one):

  { "origin": "https://hub.example.com", "runs": [ ... ], "nextCursor": "..." }

Arguments:
${ORIGIN_ARGUMENT_HELP}

Options:
  --project SLUG  Only the runs of this project
  --trigger NAME  Only the runs of this trigger
  --status STATUS
                  Only the runs with this status: ${RUN_STATUSES.join(', ')}
  --source SOURCE
                  Only the runs started this way: ${RUN_SOURCES.join(', ')}
  --limit N       At most N runs, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})
  --all           Every run, page after page
  --cursor CURSOR
                  The page after another: the nextCursor of an earlier --json answer
  --json          Print JSON instead of a table
${API_KEY_OPTION_HELP}
  -h, --help      Show this help

${CREDENTIALS_HELP}
${CLIENT_ENV_HELP}
Example:
  ${COMMAND} --project app --status failed
  ${COMMAND} --source schedule --status failed
  ${COMMAND} https://hub.example.com --trigger nightly --all --json

${exitCodes('listed (also when no run matches)', 'the hub refused (its problem is printed on standard error) or could not be reached', ',\n     no credential for the hub')}`;

interface Filters {
  project?: string;
  trigger?: string;
  status?: string;
  source?: string;
}

export const runs: Command = {
  name: 'runs',
  summary: 'List runs, newest first',
  async run(args, io) {
    const { values, positionals } = parseOptions(
      COMMAND,
      args,
      {
        project: { type: 'string' },
        trigger: { type: 'string' },
        status: { type: 'string' },
        source: { type: 'string' },
        limit: { type: 'string' },
        all: { type: 'boolean' },
        cursor: { type: 'string' },
        json: { type: 'boolean' },
        'api-key': { type: 'string' },
      },
      1,
    );
    if (values.help) {
      io.stdout.write(help);
      return 0;
    }
    if (values.status !== undefined && !(RUN_STATUSES as string[]).includes(values.status))
      throw new UsageError(`--status is one of ${RUN_STATUSES.join(', ')}.`, COMMAND);
    if (values.source !== undefined && !(RUN_SOURCES as string[]).includes(values.source))
      throw new UsageError(`--source is one of ${RUN_SOURCES.join(', ')}.`, COMMAND);
    if (values.all && values.limit !== undefined)
      throw new UsageError('--all lists every run; leave out --limit.', COMMAND);
    const limit = values.all ? MAX_LIMIT : limitOf(values.limit);
    const origin = await resolveOrigin(positionals[0], io);
    const { token } = await resolveCredential(origin, values['api-key'], io);
    const session = { origin, token, stop: new AbortController().signal };
    const filters: Filters = {
      project: values.project,
      trigger: values.trigger,
      status: values.status,
      source: values.source,
    };

    const found: Run[] = [];
    let cursor = values.cursor ?? null;
    do {
      const page = await fetchPage(session, filters, limit, cursor);
      found.push(...page.runs);
      cursor = page.nextCursor;
    } while (values.all && cursor !== null);

    if (values.json) {
      io.stdout.write(`${JSON.stringify({ origin, runs: found, nextCursor: cursor }, null, 2)}\n`);
      return 0;
    }
    io.stdout.write(found.length === 0 ? 'No runs.\n' : runsTable(found, Date.now()));
    if (cursor !== null)
      io.stderr.write(
        `More runs than these: ${suggest('hub runs', positionals[0])}${rerun(filters)} --all, or --limit N (up to ${MAX_LIMIT}).\n`,
      );
    return 0;
  },
};

function limitOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LIMIT;
  const limit = /^[0-9]+$/.test(value) ? Number(value) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT))
    throw new UsageError(`--limit is a whole number from 1 to ${MAX_LIMIT}.`, COMMAND);
  return limit;
}

/** The filters as options again, for a suggested command. */
function rerun(filters: Filters): string {
  return Object.entries(filters)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => ` --${name} ${/^[A-Za-z0-9._-]+$/.test(value as string) ? value : JSON.stringify(value)}`)
    .join('');
}

async function fetchPage(
  session: Session,
  filters: Filters,
  limit: number,
  cursor: string | null,
): Promise<{ runs: Run[]; nextCursor: string | null }> {
  const query = new URLSearchParams({
    ...definedOnly(filters),
    limit: String(limit),
    ...(cursor === null ? {} : { cursor }),
  });
  const answer = await ask(session, 'GET', `/api/v1/runs?${query}`);
  if (answer.status !== 200) throw failure(answer);
  const body = answer.body;
  const list = isObject(body) && Array.isArray(body.runs) ? body.runs.map(readRun) : undefined;
  const nextCursor =
    isObject(body) && (typeof body.nextCursor === 'string' || body.nextCursor === null) ? body.nextCursor : undefined;
  if (list === undefined || list.some((run) => run === undefined) || nextCursor === undefined)
    throw new CliError(`The hub at ${session.origin} answered with something other than a list of runs.`);
  return { runs: list as Run[], nextCursor };
}

function definedOnly(filters: Filters): Record<string, string> {
  return Object.fromEntries(
    Object.entries(filters).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}
