#!/usr/bin/env node
// The `hub` executable: the only module that touches the process (argv, signals, exit code).
import { runCli } from './cli.js';

let stop: AbortController | undefined;

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  stopSignal() {
    if (stop === undefined) {
      const controller = new AbortController();
      for (const name of ['SIGINT', 'SIGTERM'] as const) process.on(name, () => controller.abort(`received ${name}`));
      stop = controller;
    }
    return stop.signal;
  },
});
