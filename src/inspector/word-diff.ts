/** One run of words in a word-level diff: kept, removed (only in the old text) or added. */
export interface DiffPart {
  op: 'same' | 'removed' | 'added';
  text: string;
}

/** Above this many words on either side, the diff is shown as whole-text replacement. */
export const MAX_DIFF_WORDS = 2000;

/** Words with the spaces that follow them, so joining the parts gives back the texts exactly. */
const words = (text: string): string[] => text.match(/\S+\s*|\s+/g) ?? [];

/**
 * Word-level diff of two texts by longest common subsequence (compared without trailing
 * spaces). Consecutive parts of the same kind are merged, so a changed phrase reads as one
 * removal and one addition.
 */
export function diffWords(before: string, after: string): DiffPart[] {
  const a = words(before);
  const b = words(after);
  if (a.length > MAX_DIFF_WORDS || b.length > MAX_DIFF_WORDS)
    return merge([
      { op: 'removed', text: before },
      { op: 'added', text: after },
    ]);
  const key = (w: string) => w.trimEnd();
  // lcs[i][j]: length of the common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = key(a[i]!) === key(b[j]!) ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const parts: DiffPart[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (key(a[i]!) === key(b[j]!)) {
      parts.push({ op: 'same', text: b[j]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) parts.push({ op: 'removed', text: a[i++]! });
    else parts.push({ op: 'added', text: b[j++]! });
  }
  while (i < a.length) parts.push({ op: 'removed', text: a[i++]! });
  while (j < b.length) parts.push({ op: 'added', text: b[j++]! });
  return merge(parts);
}

function merge(parts: DiffPart[]): DiffPart[] {
  const out: DiffPart[] = [];
  for (const p of parts) {
    if (p.text === '') continue;
    const last = out.at(-1);
    if (last && last.op === p.op) last.text += p.text;
    else out.push({ ...p });
  }
  return out;
}
