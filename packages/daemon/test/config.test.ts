// daemon.yml: what it means, and every mistake reported with its line, column and key.
import { describe, expect, it } from 'vitest';
import { parseDaemonConfig, runtimesOf } from '../src/config.js';

const FULL = `concurrency: 1
providers:
  claude:
    command: [claude, -p, "--model={model}"]
    modes: [edit, plan]
    models: [sonnet, opus]
    env: { SOME_VAR: value }
  codex:
    command: [codex, exec, "-"]
`;

describe('parseDaemonConfig', () => {
  it('reads each provider with its command, modes, models and env, and the runtimes the hub is told', () => {
    const { config, issues } = parseDaemonConfig(FULL);
    expect(issues).toEqual([]);
    expect(config?.concurrency).toBe(1);
    expect(config?.providers.get('claude')).toEqual({
      command: ['claude', '-p', '--model={model}'],
      modes: ['edit', 'plan'],
      models: ['sonnet', 'opus'],
      env: { SOME_VAR: 'value' },
    });
    expect(config?.providers.get('codex')).toEqual({ command: ['codex', 'exec', '-'], env: {} });
    expect(runtimesOf(config!)).toEqual([
      { provider: 'claude', modes: ['edit', 'plan'], models: ['sonnet', 'opus'] },
      { provider: 'codex' },
    ]);
  });

  it('defaults concurrency to 1, and takes numbers and booleans in env as their text', () => {
    const { config } = parseDaemonConfig(
      'providers:\n  claude:\n    command: [claude]\n    env: { DEBUG: 1, QUIET: true }\n',
    );
    expect(config?.concurrency).toBe(1);
    expect(config?.providers.get('claude')?.env).toEqual({ DEBUG: '1', QUIET: 'true' });
  });

  it('never finds a provider on the object prototype', () => {
    const { config } = parseDaemonConfig('providers:\n  claude:\n    command: [claude]\n');
    expect(config?.providers.get('constructor')).toBeUndefined();
    expect(config?.providers.get('toString')).toBeUndefined();
  });

  it.each([
    ['', [{ path: [], message: /empty/ }]],
    ['- a\n- b\n', [{ path: [], line: 1, column: 1, message: /mapping/ }]],
    ['concurrency: 2\n', [{ path: [], message: /needs `providers`/ }]],
    ['providers: {}\n', [{ path: ['providers'], line: 1, column: 12, message: /at least one/ }]],
    [
      'concurrency: 0\nproviders:\n  claude:\n    command: [claude]\n',
      [{ path: ['concurrency'], line: 1, column: 14, message: /1 or more/ }],
    ],
    [
      'concurrency: 1.5\nproviders:\n  claude:\n    command: [claude]\n',
      [{ path: ['concurrency'], line: 1, message: /whole number/ }],
    ],
    [
      'providers:\n  claude:\n    command: claude -p\n',
      [{ path: ['providers', 'claude', 'command'], line: 3, column: 14, message: /list of non-empty strings/ }],
    ],
    [
      'providers:\n  claude:\n    command: []\n',
      [{ path: ['providers', 'claude', 'command'], line: 3, message: /list of non-empty strings/ }],
    ],
    [
      'providers:\n  claude:\n    modes: [edit]\n',
      [{ path: ['providers', 'claude', 'command'], line: 3, column: 5, message: /^is missing/ }],
    ],
    [
      'providers:\n  claude:\n    command: ["{model}", x]\n',
      [{ path: ['providers', 'claude', 'command', 0], line: 3, column: 15, message: /program cannot be/ }],
    ],
    [
      'providers:\n  Claude Code:\n    command: [claude]\n',
      [{ path: ['providers', 'Claude Code'], line: 3, message: /provider name/ }],
    ],
    [
      'providers:\n  claude:\n    command: [claude]\n    modes: edit\n',
      [{ path: ['providers', 'claude', 'modes'], line: 4, column: 12, message: /list of non-empty strings/ }],
    ],
    [
      'providers:\n  claude:\n    command: [claude]\n    env: { 1X: a }\n',
      [{ path: ['providers', 'claude', 'env', '1X'], line: 4, message: /variable name/ }],
    ],
    [
      'providers:\n  claude:\n    command: [claude]\n    env: { X: [a] }\n',
      [{ path: ['providers', 'claude', 'env', 'X'], line: 4, message: /string, a number or a boolean/ }],
    ],
    [
      'providers:\n  claude:\n    command: [claude]\n    comand: [x]\n',
      [
        {
          path: ['providers', 'claude', 'comand'],
          line: 4,
          column: 5,
          message: /^unknown key; did you mean `command`\? \(allowed: command, modes, models, env\)$/,
        },
      ],
    ],
    [
      'provider:\n  claude:\n    command: [claude]\n',
      [
        { path: ['provider'], line: 1, column: 1, message: /did you mean `providers`/ },
        { path: [], message: /needs `providers`/ },
      ],
    ],
    [
      'concurency: 2\nproviders:\n  claude:\n    command: [claude]\n',
      [{ path: ['concurency'], line: 1, column: 1, message: /did you mean `concurrency`/ }],
    ],
    [
      'providers:\n  claude:\n    command: [claude]\n    "1": x\n    timeout: 5\n',
      [
        { path: ['providers', 'claude', '1'], line: 4, column: 5, message: /^unknown key \(allowed/ },
        { path: ['providers', 'claude', 'timeout'], line: 5, column: 5, message: /^unknown key \(allowed/ },
      ],
    ],
    [
      'providers:\n  claude: [claude]\n',
      [{ path: ['providers', 'claude'], line: 2, column: 11, message: /must be a mapping with `command`/ }],
    ],
    ['providers:\n  claude:\n    command: [claude\n', [{ path: [], line: 4, message: /.+/ }]],
    ['providers:\n  a:\n    command: [a]\n  a:\n    command: [b]\n', [{ path: [], line: 4, message: /unique/i }]],
  ])('%j: %j', (text, expected) => {
    const { config, issues } = parseDaemonConfig(text);
    expect(config).toBeUndefined();
    expect(issues).toEqual(
      expected.map((issue) => expect.objectContaining({ ...issue, message: expect.stringMatching(issue.message) })),
    );
  });

  it('reports a misspelled key at the key, with the likely one, and what its absence means at the mapping', () => {
    const { issues } = parseDaemonConfig('providers:\n  claude:\n    comand: [claude, -p]\n');
    expect(issues?.map(({ path, line, column }) => [path.join('.'), line, column])).toEqual([
      ['providers.claude.comand', 3, 5],
      ['providers.claude.command', 3, 5],
    ]);
    expect(issues?.[0]?.message).toContain('did you mean `command`?');
  });

  it('reports every issue at once, each with its position and key', () => {
    const { issues } = parseDaemonConfig(
      'concurrency: none\nproviders:\n  claude:\n    command: []\n    models: [""]\n',
    );
    expect(issues).toEqual([
      { path: ['concurrency'], line: 1, column: 14, message: 'must be a whole number, 1 or more' },
      {
        path: ['providers', 'claude', 'command'],
        line: 4,
        column: 14,
        message: 'must be a list of non-empty strings, the program first: [claude, -p]',
      },
      {
        path: ['providers', 'claude', 'models'],
        line: 5,
        column: 13,
        message: 'must be a list of non-empty strings of at most 200 characters',
      },
    ]);
  });
});
