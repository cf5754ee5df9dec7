// The request examples of the OpenAPI document: the files of packages/schemas/examples/, verbatim
// (test/openapi.test.ts checks that they still are). Kept here as data, so that the document
// needs no file system at run time.

/** packages/schemas/examples/configuration.yml */
export const configurationYaml = `# yaml-language-server: $schema=../schemas/configuration.schema.json
environments:
  - name: laptop
    kind: daemon
    daemon: dev-box
    cwd: ~/src/app
triggers:
  - name: fix-tests
    on:
      manual.run:
        inputs:
          branch: { description: Branch to fix, required: false, default: main }
    max_runtime: 2h
    filters:
      from_users: [dev-lead, ci-bot]
    steps:
      - id: fix
        environment: laptop
        max_runtime: 1h
        idle_timeout: 10m
        agent: { provider: claude, mode: edit }
        prompt:
          - text: "Fix the failing tests on {{ inputs.branch }}. {{ prompt }}"
          - include: testing.md
`;

/** The partial that configuration.yml includes (not among the example files). */
export const configurationPartials = [{ path: 'testing.md', content: 'Run the whole suite.\n' }];

/** packages/schemas/examples/trigger.yml */
export const triggerYaml = `# yaml-language-server: $schema=../schemas/trigger.schema.json
name: nightly-triage
enabled: true
on:
  manual.run: {}
filters:
  from_users: [ci-bot]
run:
  target: { daemon: build-box, cwd: /srv/repo }
  agent:
    provider: codex
    model: gpt-5
    mode: auto
    prompt: "Triage new issues. {{ prompt }}"
    max_runtime: 30m
    idle_timeout: 5m
`;

/** packages/schemas/examples/bundle/: a legacy bundle, as { path, content } entries. */
export const bundleFiles = [
  {
    path: '.hub/hub.yml',
    content: `# yaml-language-server: $schema=../../../schemas/legacy-hub.schema.json
environments:
  build:
    kind: daemon
    daemon: build-box
    cwd: /srv/repo
agents:
  reviewer:
    provider: claude
    mode: review
`,
  },
  {
    path: '.hub/workflows/review.yml',
    content: `# yaml-language-server: $schema=../../../../schemas/legacy-workflow.schema.json
name: review
on:
  manual.run:
    inputs:
      pr: { description: Pull request number, required: true }
max_runtime: 1h
filters:
  from_users: [dev-lead]
steps:
  - id: review
    environment: build
    idle_timeout: 10m
    agent: reviewer
    prompt:
      - text: "Review pull request {{ inputs.pr }}. {{ prompt }}"
      - include: partials/review.md
`,
  },
  {
    path: '.hub/workflows/partials/review.md',
    content: `Point at the exact line of every problem you find.
`,
  },
];
