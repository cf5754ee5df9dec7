// The example daemon config of the help and of the error for a missing file: text only, so that
// help.ts loads nothing of @hub/daemon.
export const EXAMPLE_CONFIG = `concurrency: 1                 # executions run at once (default 1)
providers:                     # agent provider -> the command that runs it
  claude:
    command: [claude, -p, "--model={model}"]   # argv; the prompt arrives on standard input
    modes: [edit, plan]        # optional: advertised to the hub
    models: [sonnet, opus]     # optional: advertised to the hub
    env: { SOME_VAR: value }   # optional: extra environment
  codex:
    command: [codex, exec, "-"]
`;
