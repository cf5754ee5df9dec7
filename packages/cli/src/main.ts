#!/usr/bin/env node
// The `hub` executable: the only module that touches the process (argv, signals, exit code).
import { runCli } from './cli.js';

let stop: AbortController | undefined;

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  // Each stream is made on first use: making one costs a few ms that a command that does not
  // use it (`hub --help`: standard input and error) need not pay.
  get stdin() {
    return process.stdin;
  },
  get stdout() {
    return process.stdout;
  },
  get stderr() {
    return process.stderr;
  },
  stopSignal() {
    if (stop === undefined) {
      const controller = new AbortController();
      for (const name of ['SIGINT', 'SIGTERM'] as const) process.on(name, () => controller.abort(`received ${name}`));
      stop = controller;
    }
    return stop.signal;
  },
});
