// @ts-check
/**
 * `pnpm bench` (after the compile benchmark): how long the `hub` CLI takes from exec to exit,
 * against a Node process that does nothing (`node -e 0`), measured in the same run:
 * `hub --help`, and `hub validate` in a small repository (a configuration that includes one
 * partial, and one trigger) as a pre-commit hook runs it. See bench/README.md.
 *
 * Run after `pnpm build` (it runs packages/cli/dist/main.js). `--rounds N` sets the number of
 * samples of each (default 40). It prints; it never fails on a missed target. It fails only when
 * a command does not do what it should (exit 0, the help, "valid"), since timing an error path
 * would measure the wrong thing.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { check, cleanupOnExit, quantile, table } from './report.js';

const MAIN = fileURLToPath(new URL('../packages/cli/dist/main.js', import.meta.url));
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1] ?? '') || 40;
const WARMUP = 3;
/** Targets from the issue: wall time ÷ `node -e 0`. */
const TARGETS = { help: 1.5, validate: 2 };

/** A small repository as `hub validate` finds it: .hub/config.yml with its partial, and a trigger. */
const FILES = {
  '.hub/config.yml': `environments:
  - name: laptop
    kind: daemon
    daemon: dev-box
    cwd: ~/src/app
triggers:
  - name: fix-tests
    on:
      manual.run:
        inputs:
          scope: { description: What to fix, enum: [unit, e2e], default: unit }
    max_runtime: 2h
    filters:
      from_users: [dev-lead]
    steps:
      - id: fix
        environment: laptop
        agent: { provider: claude }
        prompt:
          - text: "Fix the failing {{ inputs.scope }} tests. {{ prompt }}"
          - include: testing.md
`,
  '.hub/partials/testing.md': 'Run the tests; all of them.\n',
  '.hub/triggers/nightly.yml': `name: nightly
enabled: true
on:
  manual.run: {}
filters:
  from_users: [ci-bot]
run:
  target: { daemon: build-box, cwd: /srv/repo }
  agent:
    provider: codex
    prompt: "Triage new issues. {{ prompt }}"
    max_runtime: 30m
`,
};

const { cleanups, cleanUp } = cleanupOnExit([]);
const repo = mkdtempSync(join(tmpdir(), 'hub-startup-'));
cleanups.push(() => rmSync(repo, { recursive: true, force: true }));
for (const [path, content] of Object.entries(FILES)) {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), content);
}

/** Only PATH and HOME, as a hook runs it; no HUB_* variable. */
const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/nonexistent' };
const subjects = [
  { name: 'node -e 0', args: ['-e', '0'], expect: '' },
  { name: 'hub --help', key: /** @type {const} */ ('help'), args: [MAIN, '--help'], expect: 'Usage: hub <command>' },
  { name: 'hub validate', key: /** @type {const} */ ('validate'), args: [MAIN, 'validate'], expect: 'Checked 3 files: valid.' },
];

/**
 * One run of `args` in the repository, exec to exit, in ms; what it printed.
 * @param {string[]} args
 */
function once(args) {
  const t0 = performance.now();
  const result = spawnSync(process.execPath, args, { cwd: repo, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - t0;
  check(result.status === 0, `node ${args.join(' ')} exited with ${result.status}: ${result.stderr}`);
  return { ms, stdout: result.stdout };
}

try {
  for (const subject of subjects) {
    for (let i = 0; i < WARMUP; i += 1) check(once(subject.args).stdout.includes(subject.expect), `${subject.name} printed no "${subject.expect}"`);
  }
  /** @type {number[][]} */
  const samples = subjects.map(() => []);
  for (let round = 0; round < rounds; round += 1) {
    // Interleaved, and in a rotating order, so that a slow spell of the machine hits each alike.
    for (let i = 0; i < subjects.length; i += 1) {
      const at = (round + i) % subjects.length;
      samples[at]?.push(once(subjects[at]?.args ?? []).ms);
    }
  }
  const sorted = samples.map((list) => [...list].sort((a, b) => a - b));
  const baseline = quantile(sorted[0] ?? [], 0.5);
  const rows = subjects.map((subject, i) => {
    const list = sorted[i] ?? [];
    const median = quantile(list, 0.5);
    const target = subject.key === undefined ? undefined : TARGETS[subject.key];
    const ratio = median / baseline;
    return [
      subject.name,
      median.toFixed(1),
      quantile(list, 0.25).toFixed(1),
      quantile(list, 0.75).toFixed(1),
      `${ratio.toFixed(2)}x`,
      target === undefined ? 'baseline' : `<= ${target}x: ${ratio <= target ? 'met' : 'MISSED'}`,
    ];
  });
  console.log(`CLI start-up, ${rounds} interleaved runs of each (after ${WARMUP} warm-up runs), ${cpus().length} CPUs, load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  console.log(table([['command', 'median ms', 'p25', 'p75', '÷ node -e 0', 'target'], ...rows], ['l', 'r', 'r', 'r', 'r', 'l']));
} finally {
  await cleanUp();
}
