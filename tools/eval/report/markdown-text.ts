/** Markdown building blocks for text that comes from data. */

/** Text from data inside a table or a line: no cell breaks, no raw HTML. */
export function escapeText(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ');
}

/** A link target that survives spaces and parentheses in a path. */
export function escapeLinkTarget(path: string): string {
  return encodeURI(path).replace(/\(/g, '%28').replace(/\)/g, '%29');
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** A Markdown table; the first `textColumns` are left-aligned text, the rest right-aligned numbers. */
export function table(header: readonly string[], rows: readonly (readonly string[])[], textColumns = 1): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  const align = header.map((_, i) => (i < textColumns ? '---' : '---:'));
  return [line(header), line(align), ...rows.map(line)].join('\n');
}
