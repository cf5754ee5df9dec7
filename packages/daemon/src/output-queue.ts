// The output of one execution that is not sent yet, oldest first, in bounded memory: past the
// bound the oldest is dropped, and one marker chunk says how much, where it was.
import type { OutputChunk } from './client.js';
import { MAX_CHUNK_BYTES } from './lines.js';

/** The hub takes at most this many chunks a request. */
const MAX_BATCH_CHUNKS = 1_000;

export interface Piece {
  stream: OutputChunk['stream'];
  /** When the daemon read its end (Date.now()). */
  at: number;
  text: string;
}

export class OutputQueue {
  private pieces: (Piece & { bytes: number })[] = [];
  /** Where the oldest piece is: taking from the front does not move the others. */
  private head = 0;
  /** UTF-8 bytes of the pieces waiting. */
  bytes = 0;
  private dropped: { bytes: number; at: number } | undefined;

  constructor(private readonly maxBytes: number) {}

  get length(): number {
    return this.pieces.length - this.head + (this.dropped === undefined ? 0 : 1);
  }

  /** Whether a batch would be as large as one can be. */
  get full(): boolean {
    return this.bytes >= MAX_CHUNK_BYTES || this.pieces.length - this.head >= MAX_BATCH_CHUNKS;
  }

  /** Adds `piece`; true when that started dropping the oldest. */
  push(piece: Piece): boolean {
    const bytes = Buffer.byteLength(piece.text);
    this.pieces.push({ ...piece, bytes });
    this.bytes += bytes;
    const wasDropping = this.dropped !== undefined;
    while (this.bytes > this.maxBytes) this.dropOldest();
    return !wasDropping && this.dropped !== undefined;
  }

  /**
   * The next batch, numbered from `seq`: the marker of dropped output first, then pieces up to
   * MAX_CHUNK_BYTES in at most MAX_BATCH_CHUNKS chunks (a longer piece cannot be: see LineCutter).
   */
  take(seq: number): { chunks: OutputChunk[]; droppedBytes?: number } {
    const chunks: OutputChunk[] = [];
    let bytes = 0;
    const dropped = this.dropped;
    if (dropped !== undefined) {
      const text = `[hub daemon: ${dropped.bytes} bytes of output dropped: the hub could not be reached]\n`;
      chunks.push({ seq: seq++, stream: 'stderr', at: new Date(dropped.at).toISOString(), text });
      bytes += text.length;
      this.dropped = undefined;
    }
    while (this.head < this.pieces.length && chunks.length < MAX_BATCH_CHUNKS) {
      const piece = this.pieces[this.head] as Piece & { bytes: number };
      if (chunks.length > 0 && bytes + piece.bytes > MAX_CHUNK_BYTES) break;
      this.head++;
      this.bytes -= piece.bytes;
      bytes += piece.bytes;
      chunks.push({ seq: seq++, stream: piece.stream, at: new Date(piece.at).toISOString(), text: piece.text });
    }
    this.compact();
    return dropped === undefined ? { chunks } : { chunks, droppedBytes: dropped.bytes };
  }

  private dropOldest(): void {
    const oldest = this.pieces[this.head++] as Piece & { bytes: number };
    this.bytes -= oldest.bytes;
    this.dropped ??= { bytes: 0, at: oldest.at };
    this.dropped.bytes += oldest.bytes;
    this.compact();
  }

  /** Lets go of the pieces before `head` once they are most of the array. */
  private compact(): void {
    if (this.head === this.pieces.length) {
      this.pieces = [];
      this.head = 0;
    } else if (this.head > 1_024 && this.head * 2 > this.pieces.length) {
      this.pieces = this.pieces.slice(this.head);
      this.head = 0;
    }
  }
}
