import { describe, expect, it } from 'vitest';
import { splitLines } from '../../../src/archive/lines.ts';
import type { LineEvent } from '../../../src/archive/lines.ts';

async function split(
  chunks: string[],
  maxLineBytes = 10,
  want?: (line: number) => boolean,
): Promise<Array<[string, number, string | number]>> {
  const out: Array<[string, number, string | number]> = [];
  const events: AsyncIterable<LineEvent> = splitLines(
    (async function* () {
      for (const c of chunks) yield Buffer.from(c);
    })(),
    { maxLineBytes, ...(want ? { want } : {}) },
  );
  for await (const e of events) out.push([e.type, e.line, e.type === 'line' ? e.bytes.toString() : e.size]);
  return out;
}

describe('splitLines', () => {
  it('joins lines across chunk boundaries and numbers them from 1', async () => {
    expect(await split(['ab', 'c\nd', 'e\n\nf\n'])).toEqual([
      ['line', 1, 'abc'],
      ['line', 2, 'de'],
      ['line', 3, ''],
      ['line', 4, 'f'],
    ]);
  });

  it('reports an oversize line with its full size and resumes at the next line', async () => {
    expect(await split(['12345', '67890', 'X\nok\n'], 10)).toEqual([
      ['oversize', 1, 11],
      ['line', 2, 'ok'],
    ]);
    expect(await split(['1234567890\n'], 10)).toEqual([['line', 1, '1234567890']]);
  });

  it('reports bytes after the last newline as a truncated line', async () => {
    expect(await split(['a\nbc'])).toEqual([
      ['line', 1, 'a'],
      ['truncated', 2, 2],
    ]);
  });

  it('skips unwanted lines but keeps counting them', async () => {
    expect(await split(['a\nb\nc\nd\n'], 10, (n) => n % 2 === 0)).toEqual([
      ['line', 2, 'b'],
      ['line', 4, 'd'],
    ]);
  });
});
