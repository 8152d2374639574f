import { describe, expect, it } from 'vitest';
import { memoByObject, memoByText } from '../../../policies/memo.ts';

describe('memoByText', () => {
  it('computes each text once while it is among the last texts asked for, and again once forgotten', () => {
    const seen: string[] = [];
    const upper = memoByText((t: string) => {
      seen.push(t);
      return t.toUpperCase();
    }, 2);
    expect([upper('a'), upper('b'), upper('a')]).toEqual(['A', 'B', 'A']);
    expect(seen).toEqual(['a', 'b']);
    // Two other texts later 'a' is still remembered; asking for it keeps it.
    upper('c');
    upper('d');
    expect(upper('a')).toBe('A');
    expect(seen).toEqual(['a', 'b', 'c', 'd']);
    // 'b', not asked for since, is forgotten after more than twice the capacity of other texts.
    upper('e');
    upper('f');
    expect(upper('b')).toBe('B');
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'b']);
  });

  it('keeps the last texts asked for and forgets older ones', () => {
    let calls = 0;
    const id = memoByText((t: string) => {
      calls++;
      return t;
    }, 3);
    for (let i = 0; i < 100; i++) id(String(i));
    calls = 0;
    for (const t of ['99', '98', '97']) id(t);
    expect(calls).toBe(0);
    id('90');
    expect(calls).toBe(1);
  });
});

describe('memoByObject', () => {
  it('computes once per object, apart for equal but distinct objects, undefined results included', () => {
    const seen: object[] = [];
    const f = memoByObject((o: { n: number }) => {
      seen.push(o);
      return o.n > 0 ? o.n : undefined;
    });
    const [a, b, zero] = [{ n: 1 }, { n: 1 }, { n: 0 }];
    expect([f(a), f(a), f(b), f(zero), f(zero)]).toEqual([1, 1, 1, undefined, undefined]);
    expect(seen).toEqual([a, b, zero]);
  });
});
