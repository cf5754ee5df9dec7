// `hub lsp`'s connection: LSP over two streams (the editor's stdin and stdout), served by
// server.ts's Server until the editor says exit or the input ends.
import type { Readable, Writable } from 'node:stream';
import { createConnection } from 'vscode-languageserver';
import { createProtocolConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver/node';
import { quiet, Server } from './server.js';

/** Serves LSP on `input`/`output`; resolves with the exit code once the client says exit or the input ends. */
export function serve(input: Readable, output: Writable, env: Record<string, string | undefined>): Promise<number> {
  return new Promise((resolve) => {
    let shutdown = false;
    // Once the editor says exit or the input ends, nothing may keep the process alive. The
    // connection is left to close with its streams: disposing it would make a log line still
    // queued (about a malformed message, say) throw.
    let ended = false;
    const end = (code: number) => {
      if (ended) return;
      ended = true;
      server.stop();
      input.destroy();
      resolve(code);
    };
    const watchDog = {
      get shutdownReceived() {
        return shutdown;
      },
      set shutdownReceived(value: boolean) {
        shutdown = value;
      },
      initialize() {},
      exit: end,
    };
    const connection = createConnection(
      (logger) =>
        createProtocolConnection(new StreamMessageReader(input), new StreamMessageWriter(output), quiet(logger)),
      watchDog,
    );
    input.on('end', () => end(shutdown ? 0 : 1));
    const server = new Server(connection, env);
    server.listen();
  });
}
