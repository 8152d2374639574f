import { describe, expect, it } from 'vitest';
import { busySeconds } from '../../tools/bench/workflow-history.ts';

const span = (start: number, end: number) => ({ type: 'a', start: start * 1000, end: end * 1000 });

// The nightly benchmark's orchestration share is 1 − busy / wall: overlapping activities of
// parallel consolidations must count once, gaps between them not at all.
describe('busySeconds', () => {
  it('counts time covered by at least one activity once, whatever the overlap', () => {
    expect(busySeconds([span(0, 10), span(2, 5), span(8, 12)])).toBe(12);
  });

  it('leaves out the gaps in which no activity runs', () => {
    expect(busySeconds([span(20, 25), span(0, 10)])).toBe(15);
  });

  it('is 0 without activities', () => {
    expect(busySeconds([])).toBe(0);
  });
});
