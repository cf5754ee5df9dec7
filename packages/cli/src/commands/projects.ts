// `hub projects`: the organization's active projects (GET /api/v1/projects), as a table or JSON.
import { parseOptions, type Command } from '../command.js';
import { API_KEY_OPTION_HELP, CLIENT_ENV_HELP, CREDENTIALS_HELP, ORIGIN_ARGUMENT_HELP } from '../client-help.js';
import { exitCodes } from '../help.js';
import { printable, resolveCredential, resolveOrigin } from '../hub-client.js';
import { allProjects, PAGE, type Project } from '../project-list.js';

const COMMAND = 'hub projects';

const help = `${COMMAND}: list the active projects of the organization.

Usage: ${COMMAND} [origin] [--api-key KEY] [--json]

The organization is the credential's. The list is read a page of ${PAGE} at a time, by slug.
For people, a table of slug, name and id; with --json, one object that names the hub even when
the list is empty:

  { "origin": "https://hub.example.com",
    "projects": [ { "id": "...", "slug": "app", "name": "App" } ] }

Arguments:
${ORIGIN_ARGUMENT_HELP}

Options:
${API_KEY_OPTION_HELP}
  --json          Print JSON instead of a table
  -h, --help      Show this help

${CREDENTIALS_HELP}
${CLIENT_ENV_HELP}
Example:
  HUB_API_KEY=hub_pk_... ${COMMAND} https://hub.example.com --json

${exitCodes('listed (also when there is no active project)', 'the hub refused (its problem is printed on standard error) or could not be reached', ',\n     no credential for the hub')}`;

export const projects: Command = {
  name: 'projects',
  summary: 'List the active projects of the organization',
  async run(args, io) {
    const { values, positionals } = parseOptions(
      COMMAND,
      args,
      { 'api-key': { type: 'string' }, json: { type: 'boolean' } },
      1,
    );
    if (values.help) {
      io.stdout.write(help);
      return 0;
    }
    const origin = await resolveOrigin(positionals[0], io);
    const { token } = await resolveCredential(origin, values['api-key'], io);
    const list = await allProjects(origin, token);
    io.stdout.write(values.json ? `${JSON.stringify({ origin, projects: list }, null, 2)}\n` : table(list));
    return 0;
  },
};

function table(list: Project[]): string {
  if (list.length === 0) return 'No active projects.\n';
  const rows = [
    { slug: 'SLUG', name: 'NAME', id: 'ID' },
    ...list.map(({ slug, name, id }) => ({ slug: printable(slug), name: printable(name), id: printable(id) })),
  ];
  const slugWidth = Math.max(...rows.map((row) => row.slug.length));
  const nameWidth = Math.max(...rows.map((row) => row.name.length));
  return rows.map((row) => `${row.slug.padEnd(slugWidth)}  ${row.name.padEnd(nameWidth)}  ${row.id}\n`).join('');
}
