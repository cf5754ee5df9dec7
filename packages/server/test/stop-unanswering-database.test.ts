// A hub asked to stop while its database no longer answers (its host frozen, or cut off without a
// reset: connections stay open, and nothing comes back) stops all the same: each part's stop waits
// on a query that never ends (the wake-ups' UNLISTEN, a background loop's turn), so after its
// bound the hub names what did not stop and exits. It once waited for ever.
import { createServer, connect as connectSocket, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, startHub } from './support/hub.js';

/** A TCP relay to PostgreSQL that, once `freeze()`d, swallows what either side sends, as a frozen host would. */
async function freezableRelay(target: URL): Promise<{ port: number; freeze(): void; close(): Promise<void> }> {
  let frozen = false;
  const sockets = new Set<Socket>();
  const relay = (from: Socket, to: Socket) =>
    from.on('data', (chunk) => {
      if (!frozen) to.write(chunk);
    });
  const server: Server = createServer((client) => {
    const upstream = connectSocket(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    relay(client, upstream);
    relay(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    freeze: () => void (frozen = true),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('a hub asked to stop while its database does not answer', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let relay: Awaited<ReturnType<typeof freezableRelay>>;
  beforeAll(async () => {
    database = await freshDatabase();
    relay = await freezableRelay(new URL(database.url));
  });
  afterAll(async () => {
    await relay?.close();
    await database?.drop();
  });

  it('exits 0, naming the parts it did not wait for', async () => {
    const url = new URL(database.url);
    url.port = String(relay.port);
    const hub = await startHub({ databaseUrl: url.toString(), env: { HUB_LOG_LEVEL: 'info' } });
    try {
      relay.freeze();
      // Without a bound, this waited for ever: the test's timeout is what fails it then.
      expect(await hub.stop()).toBe(0);
      // The wake-ups' UNLISTEN is sent at the stop and never answered, whatever else was in flight.
      expect(hub.output()).toMatch(
        /"message":"a part did not stop in time; the hub exits without waiting for it","name":"assignment wake-ups"/,
      );
      expect(hub.output()).toContain('"message":"stopped"');
    } finally {
      hub.process.kill('SIGKILL');
    }
  }, 120_000);
});
