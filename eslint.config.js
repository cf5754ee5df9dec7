import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

// The compiler and the schemas are pure libraries (STYLE.md): no Node built-ins, no process,
// no clock, and dependencies point one way: schemas <- compiler <- { server, cli }.
const pureImports = {
  patterns: [
    { group: ['node:*'], message: 'The compiler is pure: files come in as data, never from node:*.' },
    { group: ['@hub/server', '@hub/server/*', '@hub/cli', '@hub/cli/*'], message: 'Dependencies point one way: schemas <- compiler <- { server, cli }.' },
  ],
  paths: builtinModules.map((name) => ({ name, message: 'The compiler is pure: no Node built-ins.' })),
};
const impureGlobals = ['process', 'Buffer', 'require', '__dirname', '__filename', 'setTimeout', 'setInterval', 'Date', 'fetch'].map(
  (name) => ({ name, message: 'The compiler is pure: no process, clock or I/O globals.' }),
);

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
    },
  },
  {
    files: ['packages/schemas/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { ...pureImports, patterns: [...pureImports.patterns, { group: ['@hub/compiler', '@hub/compiler/*'], message: 'Schemas depend on nothing of ours.' }] }],
      'no-restricted-globals': ['error', ...impureGlobals],
    },
  },
);
