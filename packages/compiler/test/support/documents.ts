import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileBundle, compileConfiguration, type Issue } from '../../src/index.js';

const examples = fileURLToPath(new URL('../../../schemas/examples/', import.meta.url));

export const exampleConfiguration = readFileSync(`${examples}configuration.yml`, 'utf8');
export const exampleTrigger = readFileSync(`${examples}trigger.yml`, 'utf8');
/** A configuration with schedules (manual.run and schedule, inputs, zones): a golden case that compiles. */
export const scheduleConfiguration = readFileSync(
  fileURLToPath(new URL('../../../../test-fixtures/configuration/valid-schedule-and-manual-run.yml', import.meta.url)),
  'utf8',
);
/** A configuration with GitHub kinds (mention inputs, labels, event placeholders): a golden case that compiles. */
export const githubConfiguration = readFileSync(
  fileURLToPath(new URL('../../../../test-fixtures/configuration/valid-github-kinds.yml', import.meta.url)),
  'utf8',
);
export const exampleBundle = ['.hub/hub.yml', '.hub/workflows/review.yml', '.hub/workflows/partials/review.md'].map(
  (path) => ({
    path,
    content: readFileSync(`${examples}bundle/${path}`, 'utf8'),
  }),
);

/** A valid configuration whose one trigger has the given steps and `on` (YAML, indented for the list). */
export function configurationWith(
  options: { steps?: string; on?: string; maxRuntime?: string; extra?: string } = {},
): string {
  const steps =
    options.steps ??
    `      - id: fix
        environment: laptop
        agent: { provider: claude }
        prompt:
          - text: "Fix it. {{ prompt }}"`;
  return `environments:
  - name: laptop
    kind: daemon
    daemon: dev-box
    cwd: ~/src/app
triggers:
  - name: fix-tests
    on: ${options.on ?? '{ manual.run: {} }'}
    max_runtime: ${options.maxRuntime ?? '2h'}
    filters: { from_users: [dev-lead] }
${options.extra ?? ''}    steps:
${steps}
`;
}

/** code and pointer of each issue (or warning, with `warnings`) of a configuration. */
export function found(
  yaml: string,
  partials: { path: string; content: string }[] = [],
  warnings = false,
): [string, string][] {
  const result = compileConfiguration({ yaml, partials });
  const list: Issue[] = result.ok ? (warnings ? result.warnings : []) : result.issues;
  return list.map((issue) => [issue.code, issue.pointer]);
}

/** code and pointer of each issue of a legacy bundle made of a hub file and workflows. */
export function foundInBundle(
  hub: string,
  workflows: Record<string, string>,
  partials: Record<string, string> = {},
): [string, string, string | undefined][] {
  const files = [
    { path: '.hub/hub.yml', content: hub },
    ...Object.entries(workflows).map(([name, content]) => ({ path: `.hub/workflows/${name}.yml`, content })),
    ...Object.entries(partials).map(([name, content]) => ({ path: `.hub/workflows/partials/${name}`, content })),
  ];
  const result = compileBundle({ files });
  return result.ok ? [] : result.issues.map((issue) => [issue.code, issue.pointer, issue.file]);
}

export const legacyHub = `environments:
  build: { kind: daemon, daemon: build-box, cwd: /srv/repo }
agents:
  reviewer: { provider: claude, mode: review }
`;

export function legacyWorkflow(
  name: string,
  steps = `  - id: review
    environment: build
    agent: reviewer
    prompt:
      - text: "Review. {{ prompt }}"`,
): string {
  return `name: ${name}
on: { manual.run: {} }
max_runtime: 1h
filters: { from_users: [dev-lead] }
steps:
${steps}
`;
}
