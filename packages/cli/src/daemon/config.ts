// The daemon config file as the CLI finds it (daemon.yml in the config dir, or --config) and
// shows its mistakes; what it means is @hub/daemon's.
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseDaemonConfig, type ConfigIssue, type DaemonConfig } from '@hub/daemon';
import { CliError } from '../errors.js';
import { EXAMPLE_CONFIG } from './example.js';

export { EXAMPLE_CONFIG };

export const CONFIG_FILE = 'daemon.yml';

/** `--config`, else daemon.yml in the config dir. */
export function configFilePath(option: string | undefined, dir: string): string {
  return option === undefined ? join(dir, CONFIG_FILE) : resolve(option);
}

/** The config file, parsed; a missing or invalid file is a CliError (exit 2) naming the file. */
export async function loadDaemonConfig(file: string): Promise<DaemonConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new CliError(
        `No daemon config at ${file}. Create it (or pass --config FILE), for example:\n\n${EXAMPLE_CONFIG}`,
        2,
      );
    }
    throw new CliError(`Cannot read the daemon config ${file}: ${(error as Error).message}`, 2);
  }
  const { config, issues } = parseDaemonConfig(text);
  if (config === undefined) throw new CliError(`The daemon config is invalid:\n${formatConfigIssues(file, issues)}`, 2);
  return config;
}

export function formatConfigIssues(file: string, issues: ConfigIssue[]): string {
  return issues
    .map((issue) => {
      const where = issue.line === undefined ? file : `${file}:${issue.line}:${issue.column}`;
      return issue.path.length === 0
        ? `  ${where}: ${issue.message}`
        : `  ${where}: ${formatPath(issue.path)}: ${issue.message}`;
    })
    .join('\n');
}

function formatPath(path: (string | number)[]): string {
  return path.map((key, index) => (typeof key === 'number' ? `[${key}]` : index === 0 ? key : `.${key}`)).join('');
}
