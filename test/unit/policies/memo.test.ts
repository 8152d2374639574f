import { describe, expect, it } from 'vitest';
import { memoByText } from '../../../policies/memo.ts';

describe('memoByText', () => {
  it('computes each text once while it is remembered, and again after it was forgotten', () => {
    const seen: string[] = [];
    const upper = memoByText((t: string) => {
      seen.push(t);
      return t.toUpperCase();
    }, 2);
    expect([upper('a'), upper('b'), upper('a')]).toEqual(['A', 'B', 'A']);
    expect(seen).toEqual(['a', 'b']);
    // 'a' was used last, so adding 'c' forgets 'b'.
    upper('c');
    upper('a');
    upper('b');
    expect(seen).toEqual(['a', 'b', 'c', 'b']);
  });
});
