/**
 * Splits a byte stream into lines without ever holding more than `maxLineBytes` of one line:
 * an oversize line is counted while its bytes are dropped, so a single 2 GB "line" costs no
 * memory. Works on bytes (not strings) so each line's hash covers exactly the stored bytes.
 */

export type LineEvent =
  | { type: 'line'; line: number; bytes: Buffer }
  | { type: 'oversize'; line: number; size: number }
  /**
   * Bytes after the last newline: in an archive object the write (or the read) was cut
   * short. `bytes` is set when within the limit, for inputs where a final line without a
   * newline is normal (a hand-written JSONL file).
   */
  | { type: 'truncated'; line: number; size: number; bytes?: Buffer };

export interface SplitOptions {
  /** Lines longer than this (without the newline) become `oversize` events. */
  maxLineBytes: number;
  /** Lines for which this returns false are counted but not assembled or emitted. */
  want?: (line: number) => boolean;
}

const NEWLINE = 0x0a;
const always = (): boolean => true;

/**
 * Yields the lines of each source chunk as one array: per-line async iteration costs more
 * than parsing a small record, so the hot path pays one await per chunk, not per line.
 */
export async function* splitLineBatches(
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  options: SplitOptions,
): AsyncGenerator<LineEvent[]> {
  const { maxLineBytes, want = always } = options;
  let lineNo = 1;
  let pieces: Buffer[] = [];
  let size = 0;
  for await (const raw of source) {
    const chunk =
      typeof raw === 'string'
        ? Buffer.from(raw)
        : Buffer.isBuffer(raw)
          ? raw
          : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    const batch: LineEvent[] = [];
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      const wanted = want(lineNo);
      size += end - start;
      // Keep pieces only while the line is within the limit; past it, count and drop.
      if (wanted && size <= maxLineBytes) pieces.push(chunk.subarray(start, end));
      else pieces = [];
      if (nl === -1) break;
      if (wanted) {
        batch.push(
          size > maxLineBytes
            ? { type: 'oversize', line: lineNo, size }
            : {
                type: 'line',
                line: lineNo,
                bytes: pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces, size),
              },
        );
      }
      lineNo += 1;
      pieces = [];
      size = 0;
      start = nl + 1;
    }
    if (batch.length > 0) yield batch;
  }
  if (size > 0 && want(lineNo)) {
    yield [
      size <= maxLineBytes
        ? { type: 'truncated', line: lineNo, size, bytes: Buffer.concat(pieces, size) }
        : { type: 'truncated', line: lineNo, size },
    ];
  }
}

/** One event at a time, for callers where convenience beats per-line overhead. */
export async function* splitLines(
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  options: SplitOptions,
): AsyncGenerator<LineEvent> {
  for await (const batch of splitLineBatches(source, options)) yield* batch;
}
