// `hub validate`: the repository's hub files compiled offline, as a pre-commit check.
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Report } from '../check.js';
import type { Refusal } from '../boundary.js';
import { parseOptions, type Command } from '../command.js';
import { discover, DISCOVERY_HELP, findRoot, unitsOf, withNotes, type Unit } from '../discovery.js';
import { CliError, UsageError } from '../errors.js';
import { jsonReport, textReport } from '../formatters/issues.js';
import { exitCodes } from '../help.js';
import { cliVersion } from '../version.js';

const COMMAND = 'hub validate';

const help = `${COMMAND}: check the hub files of a repository offline, without a hub.

Usage: ${COMMAND} [paths...] [--dir DIR] [--format text|json|sarif] [--json]

Compiles each file as the hub would, with the same compiler, and prints every issue as
  file:line:column: code message
with the file relative to the repository root, then each schedule entry of the files that are
valid, with its next fire time (from now) in its zone and in UTC:
  schedule nightly[0] "30 2 * * 1-5" Europe/Berlin: next 2026-11-30 02:30 CET (01:30 UTC)
then a summary. Nothing is sent anywhere: no
credential is needed, and whether the daemons, agent providers, modes and models that the
files name exist is not checked (the hub checks that on "hub deploy" and "hub deploy --dry-run").

Arguments:
  paths              Files to check instead of everything found: a trigger file, a config.yml
                     (with the partials it includes from partials/ beside it), a hub.yml (with
                     workflows/*.yml beside it and the partials they include). A partial stands
                     for its config.yml, a workflow for its hub.yml.

Options:
  --dir DIR          The repository root (default: the nearest directory from here up that
                     holds .hub/ or .git)
  --format FORMAT    text (default), or json: one object
                       { "valid": true|false, "files": [ { "path", "kind", "valid" } ],
                         "issues": [ { "file", "line", "column", "pointer", "code",
                                       "message", "severity": "error"|"warning" } ],
                         "schedules": [ { "file", "line", "column", "trigger", "index",
                                          "cron", "timezone", "next" } ] }
                     ("next": the next fire time, ISO 8601 in UTC, or null)
                     or sarif: a SARIF 2.1.0 log for code scanning (GitHub's upload-sarif):
                     one result per issue, its rule the issue code with the code's help from
                     docs/issue-codes.md, its location the file relative to the repository root
                     (uriBaseId %SRCROOT%), columns in UTF-16 code units
  --json             Short for --format json
  -h, --help         Show this help

${DISCOVERY_HELP}
Two trigger files of one directory with the same name are an issue (trigger.duplicate_name): at
the hub, the one installed later would replace the other.

Before commits: the pre-commit hook "hub-validate" (.pre-commit-hooks.yaml in the hub's
repository) runs this command; the CLI's README has a plain git hook that checks the staged files.

Example:
  ${COMMAND}
  ${COMMAND} .hub/triggers/nightly.yml --format json
  ${COMMAND} --format sarif > hub.sarif

Environment: none (HUB_URL, HUB_API_KEY and HUB_CONFIG_DIR are not used: no hub is asked).

${exitCodes('every file is valid (warnings allowed)', 'issues were found', ',\n     a file that cannot be read or is not UTF-8, nothing to validate')}`;

export const validate: Command = {
  name: 'validate',
  summary: 'Check the hub files of a repository offline (for pre-commit)',
  async run(args, io) {
    const { values, positionals } = parseOptions(
      COMMAND,
      args,
      { dir: { type: 'string' }, format: { type: 'string' }, json: { type: 'boolean' } },
      Number.POSITIVE_INFINITY,
    );
    if (values.help) {
      io.stdout.write(help);
      return 0;
    }
    if (values.json === true && values.format !== undefined && values.format !== 'json')
      throw new UsageError(`--json and --format ${values.format} conflict: give one.`, COMMAND);
    const format = values.json === true ? 'json' : (values.format ?? 'text');
    if (format !== 'text' && format !== 'json' && format !== 'sarif')
      throw new UsageError(`--format ${format}: give text, json or sarif.`, COMMAND);
    let units: Unit[];
    let notes: string[];
    let refused: Refusal[];
    let root: string;
    if (positionals.length > 0) {
      // Named files need no repository; the root only shortens the paths printed.
      root = values.dir === undefined ? await findRoot(undefined).catch(() => resolve()) : await findRoot(values.dir);
      ({ units, notes, refused } = await unitsOf(positionals, root));
    } else {
      const found = await discover(await findRoot(values.dir));
      root = found.root;
      units = [...found.triggers, found.configuration, found.bundle].filter((unit) => unit !== undefined);
      notes = found.notes;
      refused = found.refused;
      if (units.length === 0 && refused.length === 0) {
        throw new CliError(
          withNotes(
            `Nothing to validate in ${found.root}: no .hub/triggers/*.yml, .hub/config.yml or .hub/hub.yml.`,
            found.notes,
          ),
          2,
        );
      }
    }
    for (const note of notes) io.stderr.write(`note: ${note}\n`);
    // The compiler loads only here, so that the other commands start without it.
    const { checkUnits, timeSchedules } = await import('../check.js');
    const report = checkUnits(units, refused);
    // The schedules' next fire times are counted from the clock, now.
    const schedules = timeSchedules(report.schedules, new Date());
    io.stdout.write(
      format === 'sarif'
        ? await sarif(report, units, root)
        : format === 'json'
          ? jsonReport(report, schedules)
          : textReport(report, schedules),
    );
    return report.valid ? 0 : 1;
  },
};

/** The SARIF log; its formatter (with every code's help) loads only when asked for. */
async function sarif(report: Report, units: Unit[], root: string): Promise<string> {
  const { sarifReport } = await import('../formatters/sarif.js');
  const { sourcesOf } = await import('../check.js');
  const sources = new Map(units.flatMap((unit) => sourcesOf(unit)).map(({ path, content }) => [path, content]));
  return sarifReport(report, { version: cliVersion(), rootUri: pathToFileURL(join(root, '/')).href, sources });
}
