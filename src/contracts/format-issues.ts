/** What a zod issue carries that a message needs (zod's `$ZodIssue` satisfies it). */
export interface Issue {
  readonly path: ReadonlyArray<PropertyKey>;
  readonly message: string;
}

export interface FormatIssuesOptions {
  /** Names an issue about the whole value (empty path), e.g. `(input)`, `(body)`. */
  root: string;
  /** Issues shown at most; the rest are dropped (or counted, with `countRest`). @default all */
  limit?: number;
  /** Append ` (+n more)` when `limit` dropped issues. @default false */
  countRest?: boolean;
}

/**
 * One line naming every bad field, `path.to.field: message; …`: the form every parse failure
 * takes in Nocturne's errors (workflow inputs, configuration, requests, model answers, records).
 */
export function formatIssues(issues: ReadonlyArray<Issue>, options: FormatIssuesOptions): string {
  const limit = options.limit ?? issues.length;
  const shown = issues.slice(0, limit).map((i) => `${i.path.map(String).join('.') || options.root}: ${i.message}`);
  const rest = issues.length - shown.length;
  return shown.join('; ') + (options.countRest && rest > 0 ? ` (+${rest} more)` : '');
}
