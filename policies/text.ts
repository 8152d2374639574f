/** Plain-text helpers shared by the similarity, support and injection rules. */

const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can did do does for from had has have i if in into is it its me my no not of on or our ' +
    'please so than that the their them then there these they this those to too us was we were what when which while who will with ' +
    'you your yours'
  ).split(' '),
);

/** Lower-case word and number tokens, stopwords removed; keeps identifiers like `crm.export` and `$1,299.00` whole. */
export function contentTokens(text: string): string[] {
  const raw = text.toLowerCase().match(/[$€£]?[a-z0-9][a-z0-9_.,:/$@-]*[a-z0-9]|[a-z0-9]/g) ?? [];
  return raw.map((t) => t.replace(/[.,:]+$/, '')).filter((t) => t.length > 0 && !STOPWORDS.has(t));
}

export function jaccard(a: readonly string[], b: readonly string[]): number {
  const sa = new Set(a);
  const sb = new Set(b);
  if (sa.size === 0 && sb.size === 0) return 1;
  let inter = 0;
  for (const t of sa) if (sb.has(t)) inter++;
  return inter / (sa.size + sb.size - inter);
}

/** Share of `part`'s distinct tokens that occur in `whole`. */
export function coverage(part: readonly string[], whole: readonly string[]): number {
  const sp = new Set(part);
  if (sp.size === 0) return 1;
  const sw = new Set(whole);
  let hit = 0;
  for (const t of sp) if (sw.has(t)) hit++;
  return hit / sp.size;
}

/** Text of a record for matching: its text plus the string leaves of its payload. */
export function recordText(record: { text?: string | undefined; payload?: unknown; outcome?: unknown }): string {
  const parts: string[] = [];
  if (record.text) parts.push(record.text);
  collectStrings(record.payload, parts);
  collectStrings(record.outcome, parts);
  return parts.join(' ');
}

function collectStrings(value: unknown, out: string[], depth = 0): void {
  if (depth > 6 || value == null) return;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    out.push(String(value));
  } else if (Array.isArray(value)) {
    for (const v of value) collectStrings(v, out, depth + 1);
  } else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      collectStrings(v, out, depth + 1);
    }
  }
}

/** Splits prose into sentences, keeping decimal numbers and dotted identifiers intact. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[A-Z"'(])/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
