// An LSP client for tests: the bundled `hub lsp --stdio` as a child process, spoken to with
// vscode-jsonrpc as an editor would, its published diagnostics kept per URI.
import { spawn, type ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import type { Diagnostic, InitializeResult, PublishDiagnosticsParams } from 'vscode-languageserver';
import { MAIN } from './cli.js';

export interface LspClient {
  connection: MessageConnection;
  child: ChildProcess;
  /** The latest diagnostics published for `uri`, or undefined if none yet. */
  latest(uri: string): Diagnostic[] | undefined;
  /** Waits until the latest diagnostics for `uri` satisfy `test`; rejects after `ms` with what was published. */
  diagnostics(uri: string, test: (diagnostics: Diagnostic[]) => boolean, ms?: number): Promise<Diagnostic[]>;
  /** The server's answer to initialize. */
  initialized: InitializeResult;
  /** What the server registered dynamically (client/registerCapability). */
  registrations: unknown[];
  /** Every diagnostics notification, in arrival order. */
  published: PublishDiagnosticsParams[];
  stderr(): string;
  open(uri: string, text: string): Promise<void>;
  change(uri: string, version: number, text: string): Promise<void>;
  close(uri: string): Promise<void>;
  /** shutdown, exit, and the exit code. */
  stop(): Promise<number | null>;
  exited: Promise<number | null>;
}

export function uriOf(path: string): string {
  return pathToFileURL(path).href;
}

export interface StartOptions {
  capabilities?: object;
  raw?: string;
  env?: Record<string, string>;
  initializationOptions?: object;
  /** The workspace folders (default: `root` alone); `null`: none, and no rootUri either (a file opened without a folder). */
  folders?: string[] | null;
  /** Sent after the answer to initialize, before initialized (an editor may open documents then). */
  beforeInitialized?: (connection: MessageConnection) => Promise<void>;
}

/** Starts `hub lsp --stdio` in `root` (after `raw` bytes, if given) and initializes it with `root` (or `folders`) as the workspace folders. */
export async function startLsp(root: string, options: StartOptions = {}): Promise<LspClient> {
  const child = spawn(process.execPath, [MAIN, 'lsp', '--stdio'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: root, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  // Bytes no editor should send, before the first real message.
  if (options.raw !== undefined) child.stdin?.write(options.raw);
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout!),
    new StreamMessageWriter(child.stdin!),
  );
  const published: PublishDiagnosticsParams[] = [];
  const latest = new Map<string, Diagnostic[]>();
  connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
    published.push(params);
    latest.set(params.uri, params.diagnostics);
  });
  connection.onNotification('window/logMessage', () => undefined);
  const registrations: unknown[] = [];
  connection.onRequest('client/registerCapability', (params: { registrations: unknown[] }) => {
    registrations.push(...params.registrations);
    return null;
  });
  connection.listen();
  const folders = options.folders === undefined ? [root] : options.folders;
  const initialized = await connection.sendRequest<InitializeResult>('initialize', {
    processId: null,
    rootUri: folders === null ? null : uriOf(folders[0] ?? root),
    workspaceFolders:
      folders === null ? null : folders.map((folder, index) => ({ uri: uriOf(folder), name: `folder-${index}` })),
    capabilities: options.capabilities ?? {},
    ...(options.initializationOptions === undefined ? {} : { initializationOptions: options.initializationOptions }),
  });
  await options.beforeInitialized?.(connection);
  await connection.sendNotification('initialized', {});
  return {
    connection,
    child,
    initialized,
    published,
    registrations,
    latest: (uri) => latest.get(uri),
    async diagnostics(uri, test, ms = 20_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const current = latest.get(uri);
        if (current !== undefined && test(current)) return current;
        if (Date.now() > deadline)
          throw new Error(
            `no matching diagnostics for ${uri} within ${ms} ms; latest: ${JSON.stringify(current)}\nstderr: ${stderr}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stderr: () => stderr,
    exited,
    open: (uri, text) =>
      connection.sendNotification('textDocument/didOpen', {
        textDocument: { uri, languageId: 'yaml', version: 1, text },
      }),
    change: (uri, version, text) =>
      connection.sendNotification('textDocument/didChange', {
        textDocument: { uri, version },
        contentChanges: [{ text }],
      }),
    close: (uri) => connection.sendNotification('textDocument/didClose', { textDocument: { uri } }),
    async stop() {
      await connection.sendRequest('shutdown');
      await connection.sendNotification('exit');
      const code = await exited;
      connection.dispose();
      return code;
    },
  };
}
