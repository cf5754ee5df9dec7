import { readFileSync } from 'node:fs';

const examples = new URL('../../../schemas/examples/', import.meta.url);

export const configurationYaml = readFileSync(new URL('configuration.yml', examples), 'utf8');
export const configurationPartials = [{ path: 'testing.md', content: 'Run the whole suite.\n' }];
export const triggerYaml = readFileSync(new URL('trigger.yml', examples), 'utf8');
export const bundleFiles = ['.hub/hub.yml', '.hub/workflows/review.yml', '.hub/workflows/partials/review.md'].map(
  (path) => ({
    path,
    content: readFileSync(new URL(`bundle/${path}`, examples), 'utf8'),
  }),
);

/** Daemons the examples name, with the runtimes they use. */
export const exampleDaemons = [
  { name: 'dev-box', runtimes: [{ provider: 'claude', modes: ['edit'] }] },
  { name: 'build-box', runtimes: [{ provider: 'codex', models: ['gpt-5'] }, { provider: 'claude' }] },
];

/**
 * One manual trigger, `fix-tests`, that `dev-lead` may dispatch, on the daemon `dev-box`: what the
 * drills and the metrics and webhook tests dispatch under load.
 */
export const fixTestsConfiguration = `
environments:
  - { name: box, kind: daemon, daemon: dev-box, cwd: /tmp/work }
triggers:
  - name: fix-tests
    max_runtime: 1h
    on: { manual.run: {} }
    filters: { from_users: [dev-lead] }
    steps:
      - { id: fix, environment: box, agent: { provider: claude }, prompt: [{ text: "Fix. {{ prompt }}" }] }
`;
