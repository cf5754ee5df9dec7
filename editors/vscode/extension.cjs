// A minimal VS Code client for `hub lsp --stdio` (not built or tested by CI; see README.md).
// It starts the server for the YAML files under .hub/ and leaves the rest to it.
/* eslint-disable @typescript-eslint/no-require-imports */
const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const settings = vscode.workspace.getConfiguration('hub');
  const command = settings.get('path', 'hub');
  const project = settings.get('project', '');
  const server = { command, args: ['lsp'], transport: TransportKind.stdio };
  client = new LanguageClient('hub', 'Hub', server, {
    documentSelector: [
      { scheme: 'file', language: 'yaml', pattern: '**/.hub/**/*.yml' },
      { scheme: 'file', pattern: '**/.hub/{partials,workflows/partials}/**' },
    ],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/.hub/**') },
    initializationOptions: project === '' ? {} : { project },
  });
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client?.stop();
}

module.exports = { activate, deactivate };
