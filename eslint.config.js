import { builtinModules } from 'node:module';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

// The compiler and the schemas are pure libraries (STYLE.md): no Node built-ins, no process,
// no clock, and dependencies point one way: schemas <- compiler <- { server, cli }, and
// schemas <- daemon <- cli.
const pureImports = {
  patterns: [
    { group: ['node:*'], message: 'The compiler is pure: files come in as data, never from node:*.' },
    {
      group: ['@hub/server', '@hub/server/*', '@hub/cli', '@hub/cli/*', '@hub/daemon', '@hub/daemon/*'],
      message: 'Dependencies point one way: schemas <- compiler <- { server, cli }, and schemas <- daemon <- cli.',
    },
  ],
  paths: builtinModules.map((name) => ({ name, message: 'The compiler is pure: no Node built-ins.' })),
};
const impureGlobals = [
  'process',
  'Buffer',
  'require',
  '__dirname',
  '__filename',
  'setTimeout',
  'setInterval',
  'fetch',
].map((name) => ({ name, message: 'The compiler is pure: no process, clock or I/O globals.' }));
// Date itself is allowed: a schedule's fire times are Dates made from instants the caller gives.
// Reading the clock is not: new Date(), Date() and Date.now().
const clockReads = [
  {
    selector: "NewExpression[callee.name='Date'][arguments.length=0]",
    message: 'The compiler is pure: no clock; take now as an argument.',
  },
  {
    selector: "CallExpression[callee.name='Date']",
    message: 'The compiler is pure: no clock; take now as an argument.',
  },
  {
    selector: "MemberExpression[object.name='Date'][property.name='now']",
    message: 'The compiler is pure: no clock; take now as an argument.',
  },
];

// The server by feature (docs/decisions.md, "The server's map"): platform folders serve every
// feature and import none; a feature reaches another only through its index.ts; the composition
// (app.ts, main.ts, hub.ts, config.ts, dashboard/) assembles features through their index.ts too.
const SERVER = 'packages/server/src';
const PLATFORM = ['http', 'auth', 'problems', 'openapi', 'compile', 'db'];
const FEATURES = [
  'runs',
  'daemons',
  'projects',
  'configurations',
  'triggers',
  'keys',
  'logins',
  'people',
  'audit',
  'retention',
];
const serverZones = [
  ...PLATFORM.map((folder) => ({
    target: `./${SERVER}/${folder}`,
    from: [
      ...FEATURES.map((feature) => `./${SERVER}/${feature}`),
      `./${SERVER}/dashboard`,
      ...['app.ts', 'main.ts', 'hub.ts', 'config.ts'].map((file) => `./${SERVER}/${file}`),
    ],
    message:
      'Platform folders serve every feature and import none (nor the composition: app.ts, main.ts, hub.ts, config.ts, dashboard/).',
  })),
  ...FEATURES.map((feature) => ({
    target: `./${SERVER}/!(${feature})/**`,
    from: `./${SERVER}/${feature}`,
    except: ['./index.ts'],
    message: `Reach ${feature}/ through its index.ts.`,
  })),
  ...FEATURES.map((feature) => ({
    target: `./${SERVER}/*.ts`,
    from: `./${SERVER}/${feature}`,
    except: ['./index.ts'],
    message: `Reach ${feature}/ through its index.ts.`,
  })),
];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/*.d.ts', '.hub-data/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['packages/compiler/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', pureImports],
      'no-restricted-globals': ['error', ...impureGlobals],
      'no-restricted-syntax': ['error', ...clockReads],
    },
  },
  {
    files: ['packages/schemas/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          ...pureImports,
          patterns: [
            ...pureImports.patterns,
            { group: ['@hub/compiler', '@hub/compiler/*'], message: 'Schemas depend on nothing of ours.' },
          ],
        },
      ],
      'no-restricted-globals': ['error', ...impureGlobals],
      'no-restricted-syntax': ['error', ...clockReads],
    },
  },
  {
    files: ['packages/server/src/**/*.ts', 'packages/server/src/**/*.tsx'],
    plugins: { 'import-x': importX },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: serverZones }],
    },
  },
  {
    // The dashboard is mounted by the server and depends on nothing of ours but the field rules of
    // @hub/schemas (the hub checks a form by the same rules): what it stores is a port
    // (src/store.ts) that the server implements.
    files: ['packages/dashboard/src/**/*.ts', 'packages/dashboard/src/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@hub/*', '!@hub/schemas'],
              message:
                'The dashboard depends on @hub/schemas (its field rules) only; declare what else it needs in its store port.',
            },
          ],
        },
      ],
    },
  },
  {
    // The reference daemon speaks the wire protocol of @hub/schemas and nothing else of ours: the
    // CLI calls it, and a hub's code or a command's formatting never leaks into it.
    files: ['packages/daemon/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@hub/*', '!@hub/schemas'],
              message: 'The daemon depends on @hub/schemas only: schemas <- daemon <- cli.',
            },
            { group: ['../*'], message: 'The daemon imports nothing from outside its package.' },
          ],
        },
      ],
    },
  },
  {
    // Cycles among a package's own modules; type-only imports and other packages are not followed.
    files: [
      'packages/server/src/**/*.ts',
      'packages/cli/src/**/*.ts',
      'packages/daemon/src/**/*.ts',
      'packages/dashboard/src/**/*.ts',
    ],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [
        createNodeResolver({ extensions: ['.ts', '.js'], extensionAlias: { '.js': ['.ts', '.js'] } }),
      ],
      'import-x/ignore': ['node_modules', '[\\\\/]dist[\\\\/]'],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
);
