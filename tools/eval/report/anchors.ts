import { formatPercent } from './format.ts';
import { table } from './markdown-text.ts';

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

/** The published numbers as a section of their own, one column per k any of them reports. */
export function anchorSection(): string {
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
