// `hub deploy`: the repository's hub files sent to the hub (specification, section 1). The B
// trigger files: all validated first, then each installed in its own request. A configuration (A)
// or legacy bundle (B), in one request, to the project chosen by --project, .hub/project.yml or
// the organization having just one.
import { isSlug } from '@hub/schemas';
import { parseOptions, type Command, type Io } from '../command.js';
import { API_KEY_OPTION_HELP, CLIENT_ENV_HELP, CREDENTIALS_HELP, ORIGIN_ARGUMENT_HELP } from '../client-help.js';
import { namedProject, onlyProject } from '../deploy-project.js';
import { deployReport, jsonDeployReport, type DeployReport } from '../deploy-report.js';
import { deployConfiguration, deployTriggers } from '../deploy.js';
import { discover, DISCOVERY_HELP, findRoot, withNotes, type Discovered, type Unit } from '../discovery.js';
import { CliError, UsageError } from '../errors.js';
import { findingLine } from '../formatters/issues.js';
import { exitCodes } from '../help.js';
import { printable, resolveCredential, resolveOrigin } from '../hub-client.js';
import { rememberProject } from '../project-file.js';

const COMMAND = 'hub deploy';

const help = `${COMMAND}: install the repository's hub files at the hub.

Usage: ${COMMAND} [origin] [--project SLUG] [--dry-run] [--json] [--api-key KEY] [--dir DIR]

Without --project, in a repository with trigger files .hub/triggers/*.yml (shape B), deploys
them; they belong to the organization. Every file is validated by the hub first (POST
/api/v1/triggers/validate), and if any is invalid, none is installed. Then each is installed in
a request of its own (POST /api/v1/triggers/install), and each file's outcome is printed: the
trigger's name and version, or why it failed.
A failed install does not undo the installs before it; after a failure that concerns the whole
deploy (the credential refused, the hub unreachable), the rest is not tried.

With --project SLUG, or in a repository with no trigger files, deploys a project's configuration
in one request (POST /api/v1/configurations/install): .hub/config.yml with the partials it
includes (shape A), or else the legacy bundle .hub/hub.yml (shape B). A repository with both is
refused: a project has one configuration. The project is, in this order:
  --project SLUG              given; after a successful deploy (not --dry-run) it is written
                              to .hub/project.yml, so that the next deploy needs no --project
  .hub/project.yml            its one line "project: SLUG" (commit it, for everyone's deploys)
  the only project            when the organization has exactly one (listing them needs the
                              scope projects:read); with several, the error lists them
Standard error says which project, and why: "Project app (the only project of acme)."

With --dry-run, the same requests go to the validate endpoints instead, with exactly the body
an install would send; nothing is installed. Unlike "hub validate", the hub also checks that
the daemons, agent providers, modes and models named exist in the organization. The key needs
the scopes configuration:validate and (without --dry-run) configuration:install.

With --json, standard output gets one object instead of the lines for people, once the hub has
answered about the files (also when it refused them; standard error and the exit code are the
same as without --json). A failure of the whole deploy before that (the credential refused,
the hub unreachable) prints nothing on standard output.

  { "origin": "https://hub.example.com", "project": "app" | null, "dryRun": false,
    "ok": true,
    "files": [ { "path": ".hub/triggers/nightly.yml", "kind": "trigger",
                 "status": "installed", "trigger": "nightly", "version": 3 } ],
    "issues": [ { "file", "line", "column", "pointer", "code", "message",
                  "severity": "error" } ] }

"ok" is true exactly when the exit code is 0. A file's "kind" is trigger, configuration or hub
(a legacy bundle); its "status" is valid (validated, not installed), invalid, installed, failed
or not_attempted (after a failure of the whole deploy). "trigger" is the trigger's name, once
the hub has read it; an installed configuration has "version" and "versionId"; an invalid or
failed file has "error" (the problem's first line). "issues" are the hub's, in the shape of
"hub validate --json" (line and column only where the hub gives them), each in the file of the
repository it concerns; a second file with the same trigger name is trigger.duplicate_name.

Arguments:
${ORIGIN_ARGUMENT_HELP}

Options:
  --project SLUG  Deploy the configuration of this project instead of the trigger files, and
                  remember it in .hub/project.yml
  --dry-run       Validate at the hub only, with the payload a deploy would send
  --json          Print one JSON object (above) instead of the lines for people
${API_KEY_OPTION_HELP}
  --dir DIR       The repository root (default: the nearest directory from here up that holds
                  .hub/ or .git)
  -h, --help      Show this help

${DISCOVERY_HELP}
${CREDENTIALS_HELP}
${CLIENT_ENV_HELP}
Example:
  HUB_API_KEY=hub_pk_... ${COMMAND} https://hub.example.com --dry-run
  HUB_API_KEY=hub_pk_... ${COMMAND} https://hub.example.com --project app
  ${COMMAND}              (after "hub login": the project of .hub/project.yml, or the only one)

${exitCodes(
  'deployed (with --dry-run: everything is valid)',
  'a file is invalid, an install failed, or the hub refused or could not be reached',
  ',\n     nothing to deploy, a file that cannot be read, no credential for the hub, no project\n     chosen for a configuration (the organization has none or several)',
)}`;

export const deploy: Command = {
  name: 'deploy',
  summary: 'Install the hub files of a repository (triggers, or a project configuration)',
  async run(args, io) {
    const options = {
      'api-key': { type: 'string' },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
      project: { type: 'string' },
      dir: { type: 'string' },
    } as const;
    const { values, positionals } = parseOptions(COMMAND, args, options, 1);
    if (values.help) {
      io.stdout.write(help);
      return 0;
    }
    if (values.project !== undefined && values.project.trim() === '')
      throw new UsageError('--project needs a project slug.', COMMAND);
    const root = await findRoot(values.dir);
    const found = await discover(root);
    const dryRun = values['dry-run'] === true;
    if (refusesSome(found)) {
      const origin = await resolveOrigin(positionals[0], io);
      return refuse(found, io, values.json === true ? deployReport(origin, values.project, dryRun) : undefined);
    }
    // A configuration belongs to a project; trigger files, when there are any, to the organization.
    const configuration = found.triggers.length === 0 ? (found.configuration ?? found.bundle) : undefined;
    const wantsProject = values.project !== undefined || configuration !== undefined;
    let chosen = wantsProject ? await namedProject(values.project, root) : undefined;
    const units = chooseUnits(found, wantsProject ? (chosen?.slug ?? '') : undefined);
    for (const note of found.notes) io.stderr.write(`note: ${note}\n`);
    const origin = await resolveOrigin(positionals[0], io);
    const { token } = await resolveCredential(origin, values['api-key'], io);
    if (wantsProject)
      chosen ??= await onlyProject(
        { origin, token },
        `${(units[0] as Unit).file} is a project's configuration`,
        COMMAND,
        true,
      );
    const project = chosen?.slug;
    const target = {
      origin,
      token,
      dryRun,
      io,
      ...(values.json ? { report: deployReport(origin, project, dryRun) } : {}),
    };
    if (chosen === undefined) return deployTriggers(units, target);
    io.stderr.write(`Project ${printable(chosen.slug)} (${chosen.why}).\n`);
    const code = await deployConfiguration(units[0] as Unit, chosen.slug, target);
    if (code === 0 && chosen.given && !dryRun && isSlug(chosen.slug)) {
      const said = await rememberProject(root, chosen.slug);
      if (said !== undefined) io.stderr.write(`${said}\n`);
    }
    return code;
  },
};

function refusesSome(found: Discovered): boolean {
  const units = [...found.triggers, found.configuration, found.bundle];
  return (
    found.refused.length > 0 ||
    units.some((unit) => unit !== undefined && unit.kind !== 'trigger' && unit.refused !== undefined)
  );
}

/**
 * A repository with a file that leads outside it (or nowhere) deploys nothing, whichever files
 * were asked for: the hub is not even asked, and each refusal is printed as hub validate prints it.
 */
async function refuse(found: Discovered, io: Io, report: DeployReport | undefined): Promise<number> {
  const { checkUnits } = await import('../check.js');
  const units = [found.configuration, found.bundle].filter((unit) => unit !== undefined);
  const refusals = checkUnits(units, found.refused).issues.filter((issue) => issue.code.startsWith('discovery.'));
  for (const finding of refusals) io.stderr.write(`${findingLine(finding)}\n`);
  if (report !== undefined) {
    const issues = refusals.map(({ file, line, column, pointer, code, message }) => ({
      file,
      ...(line === undefined ? {} : { line, column }),
      pointer,
      code,
      message,
      severity: 'error' as const,
    }));
    io.stdout.write(jsonDeployReport({ ...report, ok: false, issues }));
  }
  io.stderr.write(
    `Nothing was deployed: ${refusals.length === 1 ? 'a file leads' : `${refusals.length} files lead`} outside the repository or nowhere (hub deploy reads only the repository).\n`,
  );
  return 1;
}

/** The units a deploy sends: the trigger files, or (with a project) the one configuration. */
function chooseUnits(found: Discovered, project: string | undefined): Unit[] {
  const { triggers, configuration, bundle } = found;
  if (project === undefined) {
    const other = configuration ?? bundle;
    if (triggers.length > 0 && other !== undefined)
      found.notes.push(
        `${other.file} is not deployed: with trigger files here, "${COMMAND}" deploys them; "${COMMAND} --project SLUG" deploys the configuration.`,
      );
    if (triggers.length > 0) return triggers;
    throw new CliError(
      withNotes(
        `Nothing to deploy in ${found.root}: no .hub/triggers/*.yml (and, for --project, no .hub/config.yml or .hub/hub.yml).`,
        found.notes,
      ),
      2,
    );
  }
  if (configuration !== undefined && bundle !== undefined) {
    throw new CliError(
      `Both ${configuration.file} and ${bundle.file} are here, and a project has one configuration: remove the one you no longer use.`,
      2,
    );
  }
  const unit = configuration ?? bundle;
  if (unit === undefined) {
    const hint =
      triggers.length > 0
        ? ' The trigger files in .hub/triggers/ belong to the organization: deploy them without --project.'
        : '';
    throw new CliError(
      withNotes(
        `Nothing to deploy to project ${project}: no .hub/config.yml or .hub/hub.yml in ${found.root}.${hint}`,
        found.notes,
      ),
      2,
    );
  }
  if (triggers.length > 0)
    found.notes.push(`.hub/triggers/*.yml are not deployed with --project: run "${COMMAND}" without it for them.`);
  return [unit];
}
