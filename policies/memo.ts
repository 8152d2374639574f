/**
 * Remembers the results of a pure function of one string, at most `capacity` of them (the
 * oldest are forgotten first). Replay asks the same questions many times in a batch and across
 * batches: the text of a record cited by several proposals, the claim of every known note each
 * proposal is compared with. Results are shared between callers, so they must not be changed.
 */
export function memoByText<T>(fn: (text: string) => T, capacity = 4096): (text: string) => T {
  const memo = new Map<string, T>();
  return (text) => {
    const hit = memo.get(text);
    if (hit !== undefined) {
      // Most recently used last: the Map's insertion order is the eviction order.
      memo.delete(text);
      memo.set(text, hit);
      return hit;
    }
    const value = fn(text);
    memo.set(text, value);
    if (memo.size > capacity) memo.delete(memo.keys().next().value as string);
    return value;
  };
}
