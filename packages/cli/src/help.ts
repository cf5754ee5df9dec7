// Help text that several commands share.
import { EXAMPLE_CONFIG } from './daemon/example.js';

/** The exit codes of a command: 0 and 1 say what they mean for it; 2 is always a usage or configuration error. */
export function exitCodes(success: string, failure: string, usage = ''): string {
  return `Exit codes:
  0  ${success}
  1  ${failure}
  2  usage or configuration error: an unknown option, a bad argument, an invalid config file${usage}
`;
}

export const FILES_HELP = `Files (in the config dir: $HUB_CONFIG_DIR, else $XDG_CONFIG_HOME/hub, else ~/.config/hub):
  daemon.yml     the daemon config (below); --config names another file
  daemons.json   the daemon identities, one per hub: id, name, private key (mode 0600, dir 0700)
`;

export const CONFIG_HELP = `Config file (YAML):
${EXAMPLE_CONFIG.replace(/^/gm, '  ').trimEnd()}

  command is the program and its arguments, run without a shell. In an argument, {mode} and
  {model} become the step's agent mode and model; an argument whose placeholder has no value
  is left out, so write "--model={model}" rather than "--model" "{model}".
  The hub learns each provider with its modes and models, and sends only steps that match.
`;
