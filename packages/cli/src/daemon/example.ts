// The example daemon config of the help, of the error for a missing file, and of the README:
// text only, so that help.ts loads nothing of @hub/daemon. Its active agent is harmless (it
// prints its prompt), so that a first run shows the hub working without an agent editing files;
// the real agents are there, commented.
export const EXAMPLE_CONFIG = `concurrency: 1                 # executions run at once (default 1)
providers:                     # agent provider -> the command that runs it
  # A harmless stand-in for trying the hub: it prints the prompt (which arrives on standard
  # input) and changes nothing. It answers for "claude", the provider the examples' steps name.
  # To run the real agent, delete these two lines and remove the "# " before the ones below.
  claude:
    command: [node, -e, "process.stdin.pipe(process.stdout)"]
  # claude:
  #   command: [claude, -p, "--model={model}"]   # argv; the prompt arrives on standard input
  #   modes: [edit, plan]        # optional: advertised to the hub
  #   models: [sonnet, opus]     # optional: advertised to the hub
  #   env: { SOME_VAR: value }   # optional: extra environment
  # codex:
  #   command: [codex, exec, "-"]
`;
