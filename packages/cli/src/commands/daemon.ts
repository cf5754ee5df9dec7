// `hub daemon`: the reference daemon's commands.
import { group } from '../command.js';
import { FILES_HELP } from '../help.js';
import { enroll } from './daemon-enroll.js';
import { run } from './daemon-run.js';

export const daemon = group({
  name: 'daemon',
  path: 'hub daemon',
  summary: 'Run coding agents on this machine for a hub (enroll, run)',
  help: (commands) => `hub daemon: run coding agents on this machine for a hub.

A daemon enrolls once with a hub ("hub daemon enroll"), then runs ("hub daemon run"): it takes
the steps of manual runs that the hub dispatches to it and runs each with the agent command that
its config file maps the step's agent provider to.

Usage: hub daemon <command> [options]

Commands:
${commands}

Options:
  -h, --help   Show this help

${FILES_HELP}
Run "hub daemon <command> --help" for the help of a command.
`,
  commands: [enroll, run],
});
