import { differenceInterval95, type Mean } from '../metrics.ts';
import type { DatasetSummary, EvalSummary, MetricBlock, SplitSummary } from '../summary-types.ts';
import { NO_VALUE, formatPercent } from './format.ts';
import { table } from './markdown-text.ts';

/** A metric's value in one dataset summary (a split, or all cases), when it has one. */
type Pick = (dataset: DatasetSummary) => Mean | undefined;

const block = (dataset: DatasetSummary, method: string, category?: string): MetricBlock | undefined => {
  const m = dataset.methods.find((x) => x.method === method);
  return category === undefined ? m?.overall : m?.byCategory.find((c) => c.category === category);
};

const evidenceAt =
  (method: string, k: number, category?: string): Pick =>
  (dataset) =>
    block(dataset, method, category)?.atK.find((a) => a.k === k)?.evidenceRecall;

/** The later split minus the first, in percentage points, signed. */
function gap(first: Mean | undefined, last: Mean | undefined): string {
  if (first?.mean == null || last?.mean == null) return NO_VALUE;
  const points = (last.mean - first.mean) * 100;
  return `${points >= 0 ? '+' : ''}${points.toFixed(1)}`;
}

/** The 95% interval's half width around the gap, in points (`±6.7`), where both splits keep their spread. */
function gapInterval(first: Mean | undefined, last: Mean | undefined): string {
  const half = first && last ? differenceInterval95(first, last) : undefined;
  return half === undefined ? NO_VALUE : `±${(half * 100).toFixed(1)}`;
}

const positionsText = (s: SplitSummary): string => s.positions.join(', ');

const INTERVAL_NOTE =
  "95% interval: how far the gap may lie from the measured one by the draw of questions alone (each question's recall an independent draw, normal approximation); questions of one case are alike, so the true spread is wider.";

/**
 * The splits side by side (tune on one, report on the other): evidence recall at every k per
 * method, then Nocturne's per category at the headline k, with the gap between the splits.
 */
export function splitSection(summary: EvalSummary, dataset: DatasetSummary): string | undefined {
  const splits = (summary.splits ?? []).filter((s) => s.summary.dataset === dataset.dataset);
  if (splits.length === 0) return undefined;
  if (splits.length === 1) {
    const [only] = splits as [SplitSummary];
    return `Cases ${positionsText(only)} only: the ${only.name} split.`;
  }
  const first = splits[0] as SplitSummary;
  const last = splits.at(-1) as SplitSummary;
  const row = (label: string, metric: string, pick: Pick): string[] => [
    label,
    metric,
    ...splits.map((s) => formatPercent(pick(s.summary))),
    gap(pick(first.summary), pick(last.summary)),
    gapInterval(pick(first.summary), pick(last.summary)),
    formatPercent(pick(dataset)),
  ];
  const rows = dataset.methods.flatMap((m) =>
    summary.ks.map((k) => row(m.method, `Evidence R@${k}`, evidenceAt(m.method, k))),
  );
  const categories = dataset.methods.find((m) => m.method === 'nocturne')?.byCategory.map((c) => c.category) ?? [];
  for (const category of categories)
    rows.push(
      row(
        `nocturne: ${category}`,
        `Evidence R@${summary.headlineK}`,
        evidenceAt('nocturne', summary.headlineK, category),
      ),
    );
  return [
    `Cases by 1-based position in the dataset file: ${splits.map((s) => `${s.name} ${positionsText(s)}`).join('; ')}. Gap: ${last.name} minus ${first.name}, in points. ${INTERVAL_NOTE}`,
    '',
    table(['Method', 'Metric', ...splits.map((s) => s.name), 'Gap (points)', '95% interval', 'All'], rows, 2),
    '',
    perCaseTable(summary, splits),
  ].join('\n');
}

/**
 * Each case alone: Nocturne's evidence recall at every k, BM25's at the headline k and Nocturne's
 * lead over it. A change chosen on a split should help on each of its cases, not on their sum
 * alone.
 */
function perCaseTable(summary: EvalSummary, splits: readonly SplitSummary[]): string {
  const k = summary.headlineK;
  const rows = splits.flatMap((s) =>
    s.byCase.map((c) => {
      const nocturne = evidenceAt('nocturne', k)(c.summary);
      const bm25 = evidenceAt('full-text', k)(c.summary);
      return [
        `${c.position} (${c.caseId})`,
        s.name,
        String(nocturne?.n ?? 0),
        ...summary.ks.map((x) => formatPercent(evidenceAt('nocturne', x)(c.summary))),
        formatPercent(bm25),
        gap(bm25, nocturne),
      ];
    }),
  );
  const header = ['Case', 'Split', 'Questions with evidence', ...summary.ks.map((x) => `Nocturne R@${x}`)];
  return [
    `Each case alone (a change chosen on a split should help on each of its cases). Lead: Nocturne minus full-text at R@${k}, in points.`,
    '',
    table([...header, `full-text R@${k}`, 'Lead (points)'], rows, 2),
  ].join('\n');
}
