// Small valid hub documents for the validate and deploy tests (DECISIONS.md, The YAML documents).

/** A B trigger document named `name`, run by `daemon` with `provider`. */
export function triggerYaml(name: string, options: { daemon?: string; provider?: string } = {}): string {
  return `name: ${name}
enabled: true
on:
  manual.run: {}
filters:
  from_users: [ci-bot]
run:
  target: { daemon: ${options.daemon ?? 'build-box'}, cwd: /srv/repo }
  agent:
    provider: ${options.provider ?? 'codex'}
    prompt: "Triage new issues. {{ prompt }}"
    max_runtime: 30m
`;
}

/** A configuration (A) whose one step includes each of `includes` from .hub/partials/. */
export function configurationYaml(includes: string[], options: { daemon?: string } = {}): string {
  return `environments:
  - name: laptop
    kind: daemon
    daemon: ${options.daemon ?? 'dev-box'}
    cwd: ~/src/app
triggers:
  - name: fix-tests
    on:
      manual.run: {}
    max_runtime: 2h
    filters:
      from_users: [dev-lead]
    steps:
      - id: fix
        environment: laptop
        agent: { provider: claude }
        prompt:
          - text: "Fix the failing tests. {{ prompt }}"
${includes.map((include) => `          - include: ${include}\n`).join('')}`;
}

/** A legacy hub file (B). */
export const HUB_YML = `environments:
  build: { kind: daemon, daemon: dev-box, cwd: /srv/repo }
agents:
  reviewer: { provider: claude }
`;

/** A legacy workflow named `name` whose step includes each of `includes` (relative to .hub/workflows/). */
export function workflowYaml(name: string, includes: string[]): string {
  return `name: ${name}
on:
  manual.run: {}
max_runtime: 1h
filters:
  from_users: [dev-lead]
steps:
  - id: review
    environment: build
    agent: reviewer
    prompt:
      - text: "Review. {{ prompt }}"
${includes.map((include) => `      - include: ${include}\n`).join('')}`;
}
