// The Server-Sent Events parser against the HTML standard's reading of an event stream, fed
// whole and split at every position.
import { describe, expect, it } from 'vitest';
import { SseParser, sseEvents, type SseEvent } from '../src/sse.js';

const HUB_STREAM = [
  'retry: 2000',
  '',
  'id: 0',
  'event: output',
  'data: {"seq":0,"stream":"stdout","at":"2026-11-24T10:00:00.000Z","text":"line 1\\n"}',
  '',
  ': keep-alive',
  '',
  'event: end',
  'data: {"executionId":"e","status":"succeeded","exitCode":0,"message":null}',
  '',
  '',
].join('\n');

const parseAll = (pieces: string[]) => {
  const parser = new SseParser();
  const events = pieces.flatMap((piece) => parser.feed(piece));
  return { events, parser };
};

describe('SseParser', () => {
  it("reads the hub's stream: retry, an output event with its id, a comment, the end event", () => {
    const { events, parser } = parseAll([HUB_STREAM]);
    expect(events).toEqual([
      {
        type: 'output',
        data: '{"seq":0,"stream":"stdout","at":"2026-11-24T10:00:00.000Z","text":"line 1\\n"}',
        lastEventId: '0',
      },
      { type: 'end', data: '{"executionId":"e","status":"succeeded","exitCode":0,"message":null}', lastEventId: '0' },
    ]);
    expect(parser.retryMs).toBe(2000);
    expect(parser.lastEventId).toBe('0');
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('gives the same events split at every position, with %s line ends', (_name, end) => {
    const stream = HUB_STREAM.replaceAll('\n', end);
    const whole = parseAll([stream]).events;
    expect(whole).toHaveLength(2);
    for (let cut = 0; cut <= stream.length; cut++) {
      expect(parseAll([stream.slice(0, cut), stream.slice(cut)]).events).toEqual(whole);
    }
    expect(parseAll([...stream]).events).toEqual(whole);
  });

  it.each<[string, string, SseEvent[]]>([
    ['joins data lines with LF', 'data: a\ndata:b\ndata\n\n', [{ type: 'message', data: 'a\nb\n', lastEventId: '' }]],
    ['strips one space after the colon only', 'data:  two\n\n', [{ type: 'message', data: ' two', lastEventId: '' }]],
    [
      'dispatches nothing without data, but keeps the id',
      'id: 7\nevent: x\n\ndata: y\n\n',
      [{ type: 'message', data: 'y', lastEventId: '7' }],
    ],
    ['an empty data line is an event with empty data', 'data\n\n', [{ type: 'message', data: '', lastEventId: '' }]],
    [
      'ignores an id with NUL',
      'id: 1\ndata: a\n\nid: 2\u00003\ndata: b\n\n',
      [
        { type: 'message', data: 'a', lastEventId: '1' },
        { type: 'message', data: 'b', lastEventId: '1' },
      ],
    ],
    [
      'an empty id resets the last event id',
      'id: 1\ndata: a\n\nid\ndata: b\n\n',
      [
        { type: 'message', data: 'a', lastEventId: '1' },
        { type: 'message', data: 'b', lastEventId: '' },
      ],
    ],
    [
      'ignores unknown fields and comments',
      'foo: bar\n: hello\ndata: z\n\n',
      [{ type: 'message', data: 'z', lastEventId: '' }],
    ],
    ['strips a leading byte order mark', '\ufeffdata: a\n\n', [{ type: 'message', data: 'a', lastEventId: '' }]],
    ['waits for the blank line', 'data: a\n', []],
  ])('%s', (_name, stream, expected) => {
    expect(parseAll([stream]).events).toEqual(expected);
  });

  it('resumes from the last complete event: the id of an event cut short does not count', () => {
    const { events, parser } = parseAll(['id: 1\ndata: a\n\nid: 2\ndata: b']);
    expect(events.map((event) => event.lastEventId)).toEqual(['1']);
    expect(parser.lastEventId).toBe('1');
    parser.feed('\n\n');
    expect(parser.lastEventId).toBe('2');
  });

  it('takes a retry of digits only', () => {
    expect(parseAll(['retry: 2x\n\n']).parser.retryMs).toBeUndefined();
    expect(parseAll(['retry: 1500\n\nretry: -1\n\n']).parser.retryMs).toBe(1500);
  });

  it('keeps a byte order mark that is not at the start of the stream', () => {
    expect(parseAll(['data: a\n\n', '\ufeffdata: b\n\n']).events.map((event) => event.data)).toEqual(['a']);
  });
});

describe('sseEvents', () => {
  it('decodes UTF-8 split inside a character, and drops an unfinished event at the end of the body', async () => {
    const bytes = new TextEncoder().encode('data: h\u00e9llo \u{1f600}\n\ndata: cut');
    async function* body() {
      for (const byte of bytes) yield Uint8Array.of(byte);
    }
    const events: SseEvent[] = [];
    for await (const event of sseEvents(body(), new SseParser())) events.push(event);
    expect(events).toEqual([{ type: 'message', data: 'h\u00e9llo \u{1f600}', lastEventId: '' }]);
  });
});
