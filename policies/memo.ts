/**
 * Remembers the results of a pure function of one string: at least the last `capacity` texts
 * asked for, at most twice as many. Replay asks the same questions many times in a batch and
 * across batches: the text of a record cited by several proposals, the claim of every known note
 * each proposal is compared with, each word of each text. Results are shared between callers, so
 * they must not be changed.
 *
 * Two generations instead of a strict least-recently-used order: a hit in the newer one is a
 * single look-up (reordering a Map on every hit cost more than most of the functions remembered);
 * a hit in the older one moves the text to the newer; when the newer is full, it becomes the
 * older and the older is dropped.
 */
export function memoByText<T>(fn: (text: string) => T, capacity = 4096): (text: string) => T {
  let recent = new Map<string, T>();
  let older = new Map<string, T>();
  return (text) => {
    const hit = recent.get(text);
    if (hit !== undefined) return hit;
    const value = older.get(text) ?? fn(text);
    if (recent.size >= capacity) {
      older = recent;
      recent = new Map();
    }
    recent.set(text, value);
    return value;
  };
}

/**
 * Remembers the result of a pure function of an object for as long as the object lives (a
 * WeakMap): for values derived from something that is passed around by reference and read many
 * times, such as a cited record or a query vector. Results are shared, so they must not be changed.
 */
export function memoByObject<K extends object, T>(fn: (key: K) => T): (key: K) => T {
  const memo = new WeakMap<K, T>();
  return (key) => {
    if (memo.has(key)) return memo.get(key) as T;
    const value = fn(key);
    memo.set(key, value);
    return value;
  };
}
