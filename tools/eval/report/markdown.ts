import type { Mean } from '../metrics.ts';
import type {
  AtKSummary,
  DatasetSummary,
  EvalMeta,
  EvalSummary,
  FailedRunSummary,
  MethodSummary,
} from '../summary-types.ts';
import type { EvalDataset } from '../types.ts';
import { DATASET_TITLES, NO_VALUE, formatCount, formatMs, formatPercent } from './format.ts';

/** A retrieval number someone published, to read this run's numbers against. */
interface PublishedAnchor {
  source: string;
  dataset: string;
  setup: string;
  metric: string;
  /** Value 0..1 by k. */
  atK: Record<number, number>;
}

/**
 * Published retrieval numbers. The LoCoMo ones are on the same conversations (all ten of them);
 * LongMemEval is another dataset, listed for the order of magnitude of session recall.
 */
const PUBLISHED_ANCHORS: readonly PublishedAnchor[] = [
  {
    source: 'LoCoMo paper (Maharana et al., ACL 2024)',
    dataset: 'LoCoMo',
    setup: 'DRAGON retriever over dialog turns',
    metric: 'evidence recall',
    atK: { 5: 0.567, 10: 0.662 },
  },
  {
    source: 'LoCoMo paper (Maharana et al., ACL 2024)',
    dataset: 'LoCoMo',
    setup: 'DRAGON retriever over generated observations',
    metric: 'evidence recall',
    atK: { 5: 0.562 },
  },
  {
    source: 'LongMemEval paper (Wu et al., ICLR 2025)',
    dataset: 'LongMemEval (another dataset)',
    setup: 'BM25 over sessions',
    metric: 'session recall',
    atK: { 5: 0.634 },
  },
  {
    source: 'LongMemEval paper (Wu et al., ICLR 2025)',
    dataset: 'LongMemEval (another dataset)',
    setup: 'dense retriever over sessions',
    metric: 'session recall',
    atK: { 5: 0.72 },
  },
];

interface MarkdownOptions {
  /** Path (relative to the Markdown file) of each dataset's recall@k chart, to link it. */
  charts?: Partial<Record<EvalDataset, string>>;
}

/** Text from data inside a table or a line: no cell breaks, no raw HTML. */
function escapeText(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ');
}

/** A link target that survives spaces and parentheses in a path. */
function escapeLinkTarget(path: string): string {
  return encodeURI(path).replace(/\(/g, '%28').replace(/\)/g, '%29');
}

/** A Markdown table; the first `textColumns` are left-aligned text, the rest right-aligned numbers. */
function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function table(header: readonly string[], rows: readonly (readonly string[])[], textColumns = 1): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  const align = header.map((_, i) => (i < textColumns ? '---' : '---:'));
  return [line(header), line(align), ...rows.map(line)].join('\n');
}

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
    percentColumn(`Update ordered @${headlineK}`, (m) => atK(m.overall, headlineK)?.updateOrdered),
    percentColumn(`Update found @${headlineK}`, (m) => atK(m.overall, headlineK)?.updateFound),
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

function methodTable(dataset: DatasetSummary, ks: readonly number[], headlineK: number): string {
  const columns = methodColumns(ks, headlineK).filter((c) => hasValues(c, dataset.methods));
  return table(
    columns.map((c) => c.header),
    dataset.methods.map((m) => columns.map((c) => c.cell(m))),
  );
}

/** How many questions each metric family applied to, so a percent can be read with its base. */
function questionCounts(dataset: DatasetSummary, headlineK: number): string {
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

function categoryTable(dataset: DatasetSummary, headlineK: number): string {
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

function anchorSection(): string {
  const ks = [...new Set(PUBLISHED_ANCHORS.flatMap((a) => Object.keys(a.atK).map(Number)))].sort((a, b) => a - b);
  const rows = PUBLISHED_ANCHORS.map((a) => [
    a.source,
    a.dataset,
    a.setup,
    a.metric,
    ...ks.map((k) => formatPercent(a.atK[k])),
  ]);
  return [
    '## Published anchors',
    '',
    'Published on the full datasets with their own retrievers; read them as the order of magnitude to expect, not as a same-run comparison.',
    '',
    table(['Source', 'Dataset', 'Setup', 'Metric', ...ks.map((k) => `@${k}`)], rows, 4),
  ].join('\n');
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
