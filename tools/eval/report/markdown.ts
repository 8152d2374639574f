import type { DatasetSummary, EvalMeta, EvalSummary, FailedRunSummary } from '../summary-types.ts';
import type { EvalDataset } from '../types.ts';
import { anchorSection } from './anchors.ts';
import { categoryTable, methodTable, questionCounts } from './dataset-tables.ts';
import { DATASET_TITLES, NO_VALUE, formatPercent } from './format.ts';
import { escapeLinkTarget, escapeText, plural, table } from './markdown-text.ts';
import { splitSection } from './splits.ts';

interface MarkdownOptions {
  /** Path (relative to the Markdown file) of each dataset's recall@k chart, to link it. */
  charts?: Partial<Record<EvalDataset, string>>;
}

function failedRunSection(runs: FailedRunSummary): string {
  const lines = [
    `${plural(runs.runs, 'failed run')}; ${formatPercent(runs.withNotes)} yielded at least one note, ${formatPercent(runs.withFailureLesson)} a note explaining the failure.`,
  ];
  const labelled = runs.nocturne.stepExact.n > 0 || runs.nocturne.agent.n > 0;
  if (!labelled) {
    lines.push('', 'No gold mistake step or agent in this dataset: attribution is not measured.');
    return lines.join('\n');
  }
  const row = (label: string, a: FailedRunSummary['nocturne']): string[] => [
    label,
    formatPercent(a.stepExact),
    formatPercent(a.stepWithinOne),
    formatPercent(a.agent),
  ];
  lines.push(
    '',
    `Attribution against the gold mistake (runs with a gold step: ${runs.nocturne.stepExact.n}, with a gold agent: ${runs.nocturne.agent.n}); no attribution counts as wrong.`,
    '',
    table(
      ['Attribution', 'Step exact', 'Step ±1', 'Agent'],
      [row('nocturne', runs.nocturne), row('first agent step (baseline)', runs.firstAgentStep)],
    ),
  );
  return lines.join('\n');
}

function datasetSection(dataset: DatasetSummary, summary: EvalSummary, options: MarkdownOptions): string {
  const { ks, headlineK } = summary;
  const parts = [
    `## ${DATASET_TITLES[dataset.dataset]}`,
    '',
    `${plural(dataset.cases, 'case')}, ${plural(dataset.queries, 'question')}.`,
  ];
  const chart = options.charts?.[dataset.dataset];
  if (chart !== undefined) parts.push('', `![recall@k](${escapeLinkTarget(chart)})`);
  if (dataset.methods.length > 0) {
    const counts = questionCounts(dataset, headlineK);
    parts.push(
      '',
      "Evidence R@k: share of a question's gold evidence found in the top k (mean over questions with gold evidence known before the cutoff). Session R@k: the same over the sessions holding that evidence.",
      '',
      methodTable(dataset, ks, headlineK),
      '',
      ...(counts ? [counts, ''] : []),
      `### Evidence recall@${headlineK} by category`,
      '',
      categoryTable(dataset, headlineK),
    );
  }
  const splits = splitSection(summary, dataset);
  if (splits) parts.push('', '### Tuning and reporting splits', '', splits);
  if (dataset.failedRuns) parts.push('', '### Failed runs', '', failedRunSection(dataset.failedRuns));
  return parts.join('\n');
}

function metaValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? NO_VALUE;
}

/** Run metadata: the known fields first, in a fixed order, then the rest as given. */
function metaSection(meta: EvalMeta): string {
  const rows: string[][] = [];
  const add = (label: string, value: unknown): void => {
    if (value !== undefined && value !== null) rows.push([label, escapeText(metaValue(value))]);
  };
  add('Commit', meta.commit);
  add('Started', meta.startedAt);
  add('Cutoff', meta.cutoff);
  add('Embedder', meta.embedder);
  for (const [dataset, path] of Object.entries(meta.datasetPaths ?? {})) add(`Data: ${dataset}`, path);
  for (const [phase, seconds] of Object.entries(meta.seconds ?? {})) add(`Seconds: ${phase}`, seconds);
  const known = new Set(['commit', 'startedAt', 'cutoff', 'embedder', 'datasetPaths', 'seconds']);
  for (const [key, value] of Object.entries(meta)) if (!known.has(key)) add(escapeText(key), value);
  return rows.length === 0 ? '' : table(['Run', 'Value'], rows, 2);
}

/** The evaluation report: run metadata, one section per dataset, the published anchors. */
export function renderMarkdown(summary: EvalSummary, options: MarkdownOptions = {}): string {
  const meta = metaSection(summary.meta);
  const sections = [
    '# Nocturne evaluation',
    ...(meta ? [meta] : []),
    ...summary.datasets.map((d) => datasetSection(d, summary, options)),
    anchorSection(),
  ];
  return `${sections.join('\n\n')}\n`;
}
