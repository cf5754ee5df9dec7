// OutputQueue: unsent output in bounded memory, taken in numbered batches the hub accepts.
import { describe, expect, it } from 'vitest';
import { OutputQueue } from '../src/output-queue.js';

const piece = (text: string, at = 0) => ({ stream: 'stdout' as const, at, text });

describe('OutputQueue', () => {
  it('hands out pieces oldest first, numbered on from the seq it is given', () => {
    const queue = new OutputQueue(1_000);
    queue.push(piece('a\n', 1));
    queue.push({ stream: 'stderr', at: 2, text: 'b\n' });
    expect(queue.take(7)).toEqual({
      chunks: [
        { seq: 7, stream: 'stdout', at: new Date(1).toISOString(), text: 'a\n' },
        { seq: 8, stream: 'stderr', at: new Date(2).toISOString(), text: 'b\n' },
      ],
    });
    expect(queue.length).toBe(0);
    expect(queue.bytes).toBe(0);
  });

  it('past its bound drops the oldest, and one marker says how many bytes, where they were', () => {
    const queue = new OutputQueue(10);
    expect(queue.push(piece('1234\n', 1))).toBe(false);
    expect(queue.push(piece('5678\n', 2))).toBe(false);
    expect(queue.push(piece('9abc\n', 3))).toBe(true);
    expect(queue.push(piece('defg\n', 4))).toBe(false);
    expect(queue.bytes).toBe(10);
    const { chunks, droppedBytes } = queue.take(0);
    expect(droppedBytes).toBe(10);
    expect(chunks).toEqual([
      {
        seq: 0,
        stream: 'stderr',
        at: new Date(1).toISOString(),
        text: '[hub daemon: 10 bytes of output dropped: the hub could not be reached]\n',
      },
      { seq: 1, stream: 'stdout', at: new Date(3).toISOString(), text: '9abc\n' },
      { seq: 2, stream: 'stdout', at: new Date(4).toISOString(), text: 'defg\n' },
    ]);
    expect(queue.push(piece('hijklmnopqrs\n', 5))).toBe(true);
    expect(queue.take(3).droppedBytes).toBe(13);
  });

  it('counts bytes as UTF-8', () => {
    const queue = new OutputQueue(1_000);
    queue.push(piece('é😀\n'));
    expect(queue.bytes).toBe(7);
  });

  it('takes at most 64 KiB of text and at most 1000 chunks a batch, and says when a batch would be full', () => {
    const queue = new OutputQueue(10 * 1024 * 1024);
    for (let i = 0; i < 1_500; i++) queue.push(piece('x\n'));
    expect(queue.full).toBe(true);
    expect(queue.take(0).chunks).toHaveLength(1_000);
    expect(queue.full).toBe(false);
    expect(queue.take(1_000).chunks.map((chunk) => chunk.seq)).toEqual(
      Array.from({ length: 500 }, (_, i) => 1_000 + i),
    );

    const line = `${'y'.repeat(30 * 1024 - 1)}\n`;
    for (let i = 0; i < 3; i++) queue.push(piece(line));
    expect(queue.full).toBe(true);
    expect(queue.take(0).chunks).toHaveLength(2);
    expect(queue.take(2).chunks).toHaveLength(1);
  });
});
