import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { timestamptzAsIso } from '../../../src/db/pg-timestamps.ts';
import { isoColumn } from '../../../src/db/rows.ts';

const viaDate = (text: string): string => (pg.types.getTypeParser(1184, 'text')(text) as Date).toISOString();

describe('timestamptz read as an ISO string', () => {
  it('gives what the Date path gave, milliseconds truncated the same way', () => {
    // Fractions whose 1000 * parseFloat lands just below an integer (0.291 → 290.99…) included.
    const fractions = ['', '.1', '.29', '.291', '.5', '.999', '.123456', '.000001', '.999999', '.57', '.58'];
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647);
    for (let i = 0; i < 500; i++) fractions.push(`.${String(next() % 1_000_000).padStart(6, '0')}`);
    for (const f of fractions) {
      const text = `2023-05-08 13:56:07${f}+00`;
      expect(timestamptzAsIso(text)).toBe(viaDate(text));
    }
  });

  it('reads another time zone, BC and infinity as pg does (a Date)', () => {
    for (const text of ['2023-05-08 15:56:07.25+02', '2023-05-08 13:56:07+05:30', '0044-03-15 12:00:00+00 BC']) {
      const read = timestamptzAsIso(text);
      expect(read).toBeInstanceOf(Date);
      expect((read as Date).toISOString()).toBe(viaDate(text));
    }
    expect(timestamptzAsIso('infinity')).toBe(Infinity);
  });

  it('is kept as it is by the row schemas, which still turn a Date or another string into one', () => {
    expect(isoColumn.parse('2023-05-08T13:56:07.291Z')).toBe('2023-05-08T13:56:07.291Z');
    expect(isoColumn.parse(new Date('2023-05-08T13:56:07.291Z'))).toBe('2023-05-08T13:56:07.291Z');
    expect(isoColumn.parse('2023-05-08 15:56:07+02')).toBe('2023-05-08T13:56:07.000Z');
  });
});
