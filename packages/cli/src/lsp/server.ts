// `hub lsp`'s wiring (STYLE.md, practice 19: thin glue over the core): open documents over the
// disk, a debounced check of the unit an edit touches, its diagnostics published on every file
// of the unit, quick fixes for "did you mean", and completion and hover from ./features. The
// connection it serves on is connection.ts's.
import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import {
  CodeActionKind,
  DiagnosticSeverity,
  DidChangeWatchedFilesNotification,
  TextDocuments,
  TextDocumentSyncKind,
  type Connection,
  type Diagnostic,
  type InitializeParams,
  type InitializeResult,
  type Logger,
} from 'vscode-languageserver';
import { diagnose } from './diagnostics.js';
import { complete, contextFor, hover, TRIGGER_CHARACTERS, type FeatureContext } from './editing.js';
import { IncludeCache } from './include-cache.js';
import { quickFixes } from './quick-fix.js';
import { HubResources } from './resources.js';
import { cliVersion } from '../version.js';
import { Files } from './files.js';
import { hubDirsOf, placeOf, unitKeys, unreadNote } from './workspace.js';

/**
 * How long an edit waits for the next before its unit is checked: long enough that a burst of
 * keystrokes is compiled once, short enough that diagnostics follow within 200 ms (bench/lsp.bench.js).
 */
export const DEBOUNCE_MS = 50;

/**
 * The connection's own log lines (about a malformed message, say) go to the editor; once the
 * connection has closed, sending one throws, outside any handler: those are dropped instead.
 */
export function quiet(logger: Logger): Logger {
  const safely =
    (write: (message: string) => void) =>
    (message: string): void => {
      try {
        write(message);
      } catch {
        // The editor is gone: there is no one to tell.
      }
    };
  return {
    error: safely((m) => logger.error(m)),
    warn: safely((m) => logger.warn(m)),
    info: safely((m) => logger.info(m)),
    log: safely((m) => logger.log(m)),
  };
}

export class Server {
  private readonly documents = new TextDocuments(TextDocument);
  private readonly files = new Files();
  private readonly includes = new IncludeCache();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** The files each unit key last published on, so that a file that left the unit is cleared. */
  private readonly publishedOn = new Map<string, Set<string>>();
  /** Each workspace folder and the repository it is in (itself if in none). */
  private roots: { folder: string; root: string }[] = [];
  private watch = false;

  private resources: HubResources | undefined;

  constructor(
    private readonly connection: Connection,
    private readonly env: Record<string, string | undefined>,
  ) {}

  listen(): void {
    const { connection, documents } = this;
    connection.onInitialize((params) => this.initialize(params));
    connection.onInitialized(() => {
      if (this.watch)
        void connection.client
          .register(DidChangeWatchedFilesNotification.type, {
            watchers: [{ globPattern: '**/.hub/**' }, { globPattern: '**/.hub' }],
          })
          .catch(() => undefined);
      for (const { folder, root } of this.roots)
        for (const hubDir of hubDirsOf(folder, root)) for (const key of unitKeys(hubDir)) this.schedule(key, 0);
    });
    documents.onDidChangeContent(({ document }) => this.changed(document.uri, document.getText(), DEBOUNCE_MS));
    documents.onDidClose(({ document }) => this.changed(document.uri, undefined, 0));
    connection.onDidChangeWatchedFiles(({ changes }) => {
      for (const change of changes) this.changed(change.uri, null, DEBOUNCE_MS);
    });
    connection.onCodeAction(({ textDocument, context }) =>
      this.guard('code action', [], () => {
        const document = documents.get(textDocument.uri);
        return document === undefined ? [] : quickFixes(textDocument.uri, document.getText(), context.diagnostics);
      }),
    );
    connection.onCompletion(({ textDocument, position }) =>
      this.guard('completion', [], () =>
        this.withContext(textDocument.uri, [], (context) => complete(context, position)),
      ),
    );
    connection.onHover(({ textDocument, position }) =>
      this.guard('hover', null, () => this.withContext(textDocument.uri, null, (context) => hover(context, position))),
    );
    documents.listen(connection);
    connection.listen();
  }

  stop(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.resources?.close();
  }

  private initialize(params: InitializeParams): InitializeResult {
    const folders = params.workspaceFolders?.map((folder) => folder.uri) ?? (params.rootUri ? [params.rootUri] : []);
    this.roots = folders
      .map(pathOf)
      .filter((path) => path !== undefined)
      .map((folder) => ({ folder, root: repositoryRoot(folder) }));
    // Files changed on disk but not open (a partial created, a branch checked out) are seen when the editor watches them for us.
    this.watch = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    // A configuration is validated for a project: the editor may name one ({ "project": "slug" }); triggers need none.
    const options: unknown = params.initializationOptions;
    const project =
      typeof options === 'object' && options !== null && 'project' in options && typeof options.project === 'string'
        ? options.project
        : undefined;
    this.resources = new HubResources(
      this.env,
      project,
      (key) => this.schedule(key, 0),
      (message) => quiet(this.connection.console).info(`hub lsp: ${message}`),
    );
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        completionProvider: { triggerCharacters: TRIGGER_CHARACTERS },
        hoverProvider: true,
      },
      serverInfo: { name: 'hub', ...versionOf() },
    };
  }

  /** A document's text changed (`null`: on disk; `undefined`: its buffer closed): its unit is checked after `delay`. */
  private changed(uri: string, text: string | null | undefined, delay: number): void {
    const path = pathOf(uri);
    if (path === undefined) return;
    if (text === undefined) this.files.buffers.delete(path);
    else if (text !== null) this.files.buffers.set(path, text);
    const place = placeOf(path);
    if (place !== undefined) this.schedule(place.unit, delay);
    else if (text !== null) this.noteUnread(uri, path, text);
    else for (const hubDir of this.hubDirsAt(path)) for (const key of unitKeys(hubDir)) this.schedule(key, delay);
  }

  /**
   * The hub directories a change on disk at `path` that is no hub file may touch: editors report
   * a directory deleted or checked out as that directory alone (`.hub`, `.hub/partials`, a whole
   * repository), not file by file. The `.hub` it is in, or the ones under it that were checked.
   */
  private hubDirsAt(path: string): string[] {
    const parts = path.split(sep);
    const at = parts.lastIndexOf('.hub');
    if (at >= 0) return [parts.slice(0, at + 1).join(sep)];
    const checked = new Set([...this.publishedOn.keys()].map((key) => key.slice(key.indexOf(':') + 1)));
    return [...checked].filter((hubDir) => hubDir.startsWith(path + sep));
  }

  /**
   * An open file that looks meant but is not read (`.hub/triggers/n.yaml`) says so over its first
   * line (an empty range is drawn by some editors as nothing at all); closed (`text` undefined), it is cleared.
   */
  private noteUnread(uri: string, path: string, text: string | undefined): void {
    const note = unreadNote(path);
    if (note === undefined) return;
    const end = { line: 0, character: text === undefined ? 0 : /^[^\r\n]*/.exec(text)![0].length };
    const diagnostics: Diagnostic[] =
      text === undefined
        ? []
        : [
            {
              range: { start: { line: 0, character: 0 }, end },
              severity: DiagnosticSeverity.Warning,
              source: 'hub',
              message: note,
            },
          ];
    try {
      void this.connection.sendDiagnostics({ uri, diagnostics }).catch(() => undefined);
    } catch {
      // The connection closed (the editor went away): nothing to publish to.
    }
  }

  private schedule(key: string, delay: number): void {
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => this.check(key), delay),
    );
  }

  /** Compiles the unit (in-process: a 1,000-line configuration takes milliseconds) and publishes its files' diagnostics. */
  private check(key: string): void {
    this.timers.delete(key);
    let published;
    try {
      published = diagnose(key, this.files, this.includes, this.resources);
    } catch (error) {
      this.log(`checking ${key}`, error);
      return;
    }
    const before = this.publishedOn.get(key) ?? new Set();
    for (const path of before) if (!published.has(path)) published.set(path, []);
    this.publishedOn.set(key, new Set([...published].filter(([, list]) => list.length > 0).map(([path]) => path)));
    for (const [path, diagnostics] of published) {
      try {
        void this.connection.sendDiagnostics({ uri: this.uriOf(path), diagnostics }).catch(() => undefined);
      } catch {
        // The connection closed under this check (the editor went away): nothing to publish to.
      }
    }
  }

  /** The URI the client opened `path` under, else its file URI. */
  private uriOf(path: string): string {
    for (const document of this.documents.all()) if (pathOf(document.uri) === path) return document.uri;
    return pathToFileURL(path).href;
  }

  private withContext<T>(uri: string, none: T, answer: (context: FeatureContext) => T): T {
    const path = pathOf(uri);
    const document = this.documents.get(uri);
    if (path === undefined || document === undefined) return none;
    const context = contextFor(path, document.getText(), this.files);
    return context === undefined ? none : answer(context);
  }

  /** Runs a request's handler; a thrown error is logged and answered with `fallback`, never ending the server. */
  private guard<T>(what: string, fallback: T, handler: () => T): T {
    try {
      return handler();
    } catch (error) {
      this.log(what, error);
      return fallback;
    }
  }

  private log(what: string, error: unknown): void {
    quiet(this.connection.console).error(
      `hub lsp: ${what} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
  }
}

/** The CLI's version, for the editor's log of language servers (as `hub --version` prints it); none if unreadable. */
function versionOf(): { version?: string } {
  try {
    return { version: cliVersion() };
  } catch {
    return {};
  }
}

function pathOf(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/** As findRoot: the nearest directory from `folder` up that holds .hub/ or .git, else `folder`. */
function repositoryRoot(folder: string): string {
  for (let at = folder; ; at = dirname(at)) {
    if (existsSync(join(at, '.hub')) || existsSync(join(at, '.git'))) return at;
    if (dirname(at) === at) return folder;
  }
}
