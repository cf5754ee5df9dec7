import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const examples = fileURLToPath(new URL('../../../schemas/examples/', import.meta.url));

export const exampleConfiguration = readFileSync(`${examples}configuration.yml`, 'utf8');
export const exampleTrigger = readFileSync(`${examples}trigger.yml`, 'utf8');
export const exampleBundle = ['.hub/hub.yml', '.hub/workflows/review.yml', '.hub/workflows/partials/review.md'].map((path) => ({
  path,
  content: readFileSync(`${examples}bundle/${path}`, 'utf8'),
}));

/** A valid configuration whose one trigger has the given steps and `on` (YAML, indented for the list). */
export function configurationWith(options: { steps?: string; on?: string; maxRuntime?: string; extra?: string } = {}): string {
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
