// Draining (issue 29): on SIGTERM an instance answers /readyz 503 at once and goes on serving for
// HUB_DRAIN_SECONDS, so that a load balancer moves traffic away before it stops; a waiting
// long-poll answers at once with Retry-After (the daemon polls again, elsewhere); then it stops
// as before. Ctrl-C (SIGINT) stops at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, setUp } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { freshDatabase, startHub } from './support/hub.js';

describe('a hub asked to stop (SIGTERM) drains first', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => database?.drop());

  it('answers /readyz 503 while serving the rest, ends a waiting long-poll with Retry-After, then exits 0', async () => {
    const hub = await startHub({ databaseUrl: database.url, env: { HUB_DRAIN_SECONDS: '8', HUB_LOG_LEVEL: 'info' } });
    try {
      const ctx = await setUp(hub);
      const daemon = await TestDaemon.enroll(hub, ctx.key, 'dev-box');
      expect((await call(hub, 'GET', '/readyz')).status).toBe(200);
      // A long-poll waiting for work when the stop comes.
      const polling = daemon.signed('GET', '/api/v1/daemon/assignments/next?wait=25');
      await new Promise((resolve) => setTimeout(resolve, 300));
      hub.process.kill('SIGTERM');
      const poll = await polling;
      expect(poll.status).toBe(204);
      expect(poll.headers.get('retry-after')).toBe('1');
      expect(hub.process.exitCode).toBeNull();
      const ready = await call(hub, 'GET', '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ code: 'not_ready', detail: 'The hub is stopping.' });
      const projects = await call(hub, 'GET', '/api/v1/projects', { token: ctx.key });
      expect(projects.status).toBe(200);
      // Each answer closes its connection: clients reconnect, through the balancer, elsewhere.
      expect(projects.headers.get('connection')).toBe('close');
      // A new long-poll does not wait either.
      const again = await daemon.signed('GET', '/api/v1/daemon/assignments/next?wait=25');
      expect(again.status).toBe(204);
      expect(hub.process.exitCode).toBeNull();
      expect(await hub.stop()).toBe(0);
      expect(hub.output()).toContain('draining');
    } finally {
      await hub.stop();
    }
  }, 120_000);

  it('stops at once on SIGINT (Ctrl-C), without a drain', async () => {
    const hub = await startHub({ databaseUrl: database.url, env: { HUB_DRAIN_SECONDS: '300', HUB_LOG_LEVEL: 'info' } });
    // Waited for without hub.stop(), which would send a SIGTERM at once: signals sent together may be
    // seen in either order (another thread of the hub may take the first), and a SIGTERM seen
    // first drains.
    const exited = new Promise((resolve) => hub.process.on('exit', resolve));
    hub.process.kill('SIGINT');
    try {
      // Were it to drain, it would serve for 300 s: the test's timeout is far shorter.
      expect(await exited).toBe(0);
    } finally {
      await hub.stop();
    }
    // Read once all it printed has been read (hub.stop() waits for that).
    expect(hub.output()).not.toContain('draining');
  }, 120_000);
});
