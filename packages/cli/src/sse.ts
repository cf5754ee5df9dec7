// Server-Sent Events as the HTML standard reads them ("Interpreting an event stream"): lines
// end in CRLF, LF or CR, a blank line dispatches, `:` starts a comment, `id` survives events,
// `retry` sets the reconnection delay. Fed text in pieces of any size, split anywhere.

export interface SseEvent {
  /** `message` unless the event named another. */
  type: string;
  data: string;
  /** The stream's last event id when this event was dispatched (what `Last-Event-ID` resumes from). */
  lastEventId: string;
}

export class SseParser {
  /**
   * The id of the last event dispatched (kept across events that have none): where a reconnection
   * resumes. An `id` line of an event not yet complete does not count.
   */
  lastEventId = '';
  /** The reconnection delay the stream asked for (`retry`), in ms; `undefined` until it does. */
  retryMs: number | undefined;
  private pending = '';
  /** A CR ended the last piece: an LF starting the next belongs to it. */
  private afterCr = false;
  private started = false;
  private type = '';
  private data: string[] = [];
  private idBuffer: string | undefined;

  /** The events completed by `text`; an incomplete one waits for more. */
  feed(text: string): SseEvent[] {
    let input = text;
    if (!this.started && input !== '') {
      this.started = true;
      if (input.startsWith('\ufeff')) input = input.slice(1);
    }
    if (this.afterCr && input.startsWith('\n')) input = input.slice(1);
    this.afterCr = false;
    const events: SseEvent[] = [];
    const lines = (this.pending + input).split(/\r\n|\r|\n/);
    this.pending = lines.pop() ?? '';
    if (this.pending === '' && input.endsWith('\r')) this.afterCr = true;
    for (const line of lines) {
      const event = this.line(line);
      if (event !== undefined) events.push(event);
    }
    return events;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.type = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\u0000')) this.idBuffer = value;
    else if (field === 'retry' && /^[0-9]+$/.test(value)) this.retryMs = Number(value);
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    if (this.idBuffer !== undefined) this.lastEventId = this.idBuffer;
    const type = this.type === '' ? 'message' : this.type;
    const data = this.data;
    this.type = '';
    this.data = [];
    return data.length === 0 ? undefined : { type, data: data.join('\n'), lastEventId: this.lastEventId };
  }
}

/** The events of a response body, as they arrive; ends with the body (an unfinished event is dropped). */
export async function* sseEvents(body: AsyncIterable<Uint8Array>, parser: SseParser): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder('utf-8');
  for await (const bytes of body) yield* parser.feed(decoder.decode(bytes, { stream: true }));
  yield* parser.feed(decoder.decode());
}
