/** Output conventions shared by every command: one JSON document on stdout with --json, human text otherwise, progress on stderr. */

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLine(text = ''): void {
  process.stdout.write(`${text}\n`);
}

export function warn(text: string): void {
  process.stderr.write(`${text}\n`);
}

/** Renders rows as an aligned plain-text table. */
export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/**
 * A progress line on stderr that rewrites itself on a terminal and prints sparse lines
 * otherwise (CI logs), so long work is visible without flooding logs.
 */
export function progress(label: string): { update(done: number, total?: number): void; done(summary?: string): void } {
  const tty = process.stderr.isTTY;
  let lastPrinted = 0;
  return {
    update(done, total) {
      const now = Date.now();
      if (!tty && now - lastPrinted < 2000) return;
      lastPrinted = now;
      const text = total ? `${label}: ${done}/${total} (${Math.floor((done / total) * 100)}%)` : `${label}: ${done}`;
      process.stderr.write(tty ? `\r${text}\u001b[K` : `${text}\n`);
    },
    done(summary) {
      if (tty) process.stderr.write('\r\u001b[K');
      if (summary) process.stderr.write(`${label}: ${summary}\n`);
    },
  };
}
