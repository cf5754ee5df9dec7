// A live SSE stream read as a client would (node:http): its events so far, and a wait for one.
import { request as httpRequest, type ClientRequest } from 'node:http';

/** Generous: the hubs of the tests re-check streams every few hundred ms; this only bounds a failing test. */
const EVENT_TIMEOUT_MS = 20_000;

export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/**
 * The whole events at the start of `buffer` (a comment is kept as the event ':', the `retry:`
 * block left out), and what is left of it: the start of an event not yet whole.
 */
export function takeEvents(buffer: string): { events: SseEvent[]; rest: string } {
  const events: SseEvent[] = [];
  let rest = buffer;
  let end: number;
  while ((end = rest.indexOf('\n\n')) >= 0) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    const event: SseEvent = { event: 'message', data: '' };
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) event.event = ':';
      else if (line.startsWith('id: ')) event.id = line.slice(4);
      else if (line.startsWith('event: ')) event.event = line.slice(7);
      else if (line.startsWith('data: ')) event.data += line.slice(6);
    }
    if (!block.startsWith('retry:')) events.push(event);
  }
  return { events, rest };
}

/** A live SSE stream: its events so far, and a wait for one that matches. */
export interface Stream {
  status: number;
  events: SseEvent[];
  ended: Promise<void>;
  waitFor(match: (event: SseEvent) => boolean): Promise<SseEvent>;
  close(): void;
}

/** With `token` '' no Authorization header: a dashboard stream, read with `options.cookie`. */
export function openStream(
  hub: { url: string },
  path: string,
  token: string,
  options: { cookie?: string; lastEventId?: string } = {},
): Promise<Stream> {
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (token !== '') headers.authorization = `Bearer ${token}`;
  if (options.cookie !== undefined) headers.cookie = options.cookie;
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  return new Promise((resolve, reject) => {
    const events: SseEvent[] = [];
    const waiters = new Set<() => void>();
    let req: ClientRequest | undefined = undefined;
    let ended!: () => void;
    const endedPromise = new Promise<void>((done) => (ended = done));
    req = httpRequest(`${hub.url}${path}`, { headers }, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        const taken = takeEvents(buffer + text);
        buffer = taken.rest;
        events.push(...taken.events);
        for (const wake of waiters) wake();
      });
      const finish = () => {
        ended();
        for (const wake of waiters) wake();
      };
      res.on('end', finish);
      res.on('error', finish);
      resolve({
        status: res.statusCode ?? 0,
        events,
        ended: endedPromise,
        close: () => req?.destroy(),
        waitFor: (match) =>
          new Promise((found, fail) => {
            const timer = setTimeout(() => {
              waiters.delete(look);
              fail(new Error(`no such event within ${EVENT_TIMEOUT_MS} ms; got ${JSON.stringify(events)}`));
            }, EVENT_TIMEOUT_MS);
            const look = () => {
              const event = events.find(match);
              if (event === undefined) return;
              clearTimeout(timer);
              waiters.delete(look);
              found(event);
            };
            waiters.add(look);
            look();
          }),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
