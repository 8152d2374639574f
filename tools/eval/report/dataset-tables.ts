import type { Mean } from '../metrics.ts';
import type { AtKSummary, DatasetSummary, MethodSummary } from '../summary-types.ts';
import { NO_VALUE, formatCount, formatMs, formatPercent } from './format.ts';
import { escapeText, table } from './markdown-text.ts';

/** The per-dataset tables of the Markdown report: every method side by side, then by category. */

function atK(block: { atK: AtKSummary[] }, k: number): AtKSummary | undefined {
  return block.atK.find((a) => a.k === k);
}

/**
 * A column of the per-dataset table. A column with a `value` is shown only when some method has
 * one: BEAM has no after-cutoff questions, LoCoMo no knowledge updates, and empty columns would
 * crowd out the ones that mean something.
 */
interface Column {
  header: string;
  cell: (method: MethodSummary) => string;
  value?: (method: MethodSummary) => Mean | null;
}

function hasValues(column: Column, methods: readonly MethodSummary[]): boolean {
  const value = column.value;
  return value === undefined || methods.some((m) => (value(m)?.n ?? 0) > 0);
}

function percentColumn(header: string, value: (method: MethodSummary) => Mean | null | undefined): Column {
  return { header, value: (m) => value(m) ?? null, cell: (m) => formatPercent(value(m)) };
}

/**
 * A percentage with how many questions it is over: the update columns count pairs, and pairs
 * no memory can order (an update after the cutoff, one message for both) are left out of them.
 */
function pairsColumn(header: string, value: (method: MethodSummary) => Mean | null | undefined): Column {
  const cell = (m: MethodSummary) => {
    const v = value(m);
    return v?.mean === null || v?.mean === undefined ? NO_VALUE : `${formatPercent(v)} of ${v.n}`;
  };
  return { header, value: (m) => value(m) ?? null, cell };
}

function methodColumns(ks: readonly number[], headlineK: number): Column[] {
  return [
    { header: 'Method', cell: (m) => m.method },
    { header: 'Questions', cell: (m) => String(m.overall.queries) },
    ...ks.map((k) => percentColumn(`Evidence R@${k}`, (m) => atK(m.overall, k)?.evidenceRecall)),
    ...ks.map((k) => percentColumn(`Session R@${k}`, (m) => atK(m.overall, k)?.sessionRecall)),
    percentColumn('Abstained (unanswerable)', (m) => m.overall.abstainedOnUnanswerable),
    percentColumn('False abstention', (m) => m.overall.falseAbstention),
    percentColumn(`After cutoff @${headlineK}`, (m) => atK(m.overall, headlineK)?.recalledAfterCutoff),
    percentColumn('Answered unknowable', (m) => m.overall.answeredUnknowable),
    pairsColumn(`Update ordered @${headlineK}`, (m) => atK(m.overall, headlineK)?.updateOrdered),
    pairsColumn(`Update found @${headlineK}`, (m) => atK(m.overall, headlineK)?.updateFound),
    {
      header: `Tokens/query @${headlineK}`,
      value: (m) => atK(m.overall, headlineK)?.tokens ?? null,
      cell: (m) => formatCount(atK(m.overall, headlineK)?.tokens),
    },
    {
      header: 'p50 ms',
      value: (m) => ({ mean: m.overall.latencyMs.p50, n: m.overall.latencyMs.n }),
      cell: (m) => formatMs(m.overall.latencyMs.p50),
    },
    {
      header: 'p95 ms',
      value: (m) => ({ mean: m.overall.latencyMs.p95, n: m.overall.latencyMs.n }),
      cell: (m) => formatMs(m.overall.latencyMs.p95),
    },
  ];
}

export function methodTable(dataset: DatasetSummary, ks: readonly number[], headlineK: number): string {
  const columns = methodColumns(ks, headlineK).filter((c) => hasValues(c, dataset.methods));
  return table(
    columns.map((c) => c.header),
    dataset.methods.map((m) => columns.map((c) => c.cell(m))),
  );
}

/** How many questions each metric family applied to, so a percent can be read with its base. */
export function questionCounts(dataset: DatasetSummary, headlineK: number): string {
  const most = (value: (m: MethodSummary) => Mean | undefined): number =>
    Math.max(0, ...dataset.methods.map((m) => value(m)?.n ?? 0));
  const counts: [string, number][] = [
    ['with gold evidence before the cutoff', most((m) => atK(m.overall, headlineK)?.evidenceRecall)],
    ['unanswerable', most((m) => m.overall.abstainedOnUnanswerable)],
    ['knowledge updates', most((m) => atK(m.overall, headlineK)?.updateOrdered)],
    ['answerable only after the cutoff', most((m) => m.overall.answeredUnknowable)],
  ];
  const present = counts.filter(([, n]) => n > 0);
  return present.length === 0 ? '' : `Questions ${present.map(([what, n]) => `${what}: ${n}`).join('; ')}.`;
}

export function categoryTable(dataset: DatasetSummary, headlineK: number): string {
  const categories = [...new Set(dataset.methods.flatMap((m) => m.byCategory.map((c) => c.category)))].sort((a, b) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  const rows = categories.map((category) => {
    const blocks = dataset.methods.map((m) => m.byCategory.find((c) => c.category === category));
    const questions = Math.max(0, ...blocks.map((b) => b?.queries ?? 0));
    return [
      escapeText(category),
      String(questions),
      ...blocks.map((b) => (b ? formatPercent(atK(b, headlineK)?.evidenceRecall) : NO_VALUE)),
    ];
  });
  return table(['Category', 'Questions', ...dataset.methods.map((m) => m.method)], rows);
}
