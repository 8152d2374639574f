import { describe, expect, it } from 'vitest';
import type { Mean } from '../../tools/eval/metrics.ts';
import { renderMarkdown } from '../../tools/eval/report/markdown.ts';
import { renderRecallChart } from '../../tools/eval/report/svg.ts';
import type {
  AtKSummary,
  DatasetSummary,
  EvalSummary,
  MetricBlock,
  MethodSummary,
} from '../../tools/eval/summary-types.ts';
import type { EvalMethod } from '../../tools/eval/types.ts';

const NONE: Mean = { mean: null, n: 0 };
const m = (mean: number, n = 10): Mean => ({ mean, n });

function atK(k: number, values: Partial<AtKSummary> = {}): AtKSummary {
  return {
    k,
    evidenceRecall: NONE,
    evidenceAny: NONE,
    evidenceAll: NONE,
    sessionRecall: NONE,
    sessionAny: NONE,
    recalledAfterCutoff: m(0),
    updateOrdered: NONE,
    updateFound: NONE,
    tokens: m(0),
    ...values,
  };
}

function block(values: Partial<MetricBlock> = {}): MetricBlock {
  return {
    queries: 10,
    atK: [atK(5), atK(10)],
    abstainedOnUnanswerable: NONE,
    falseAbstention: m(0),
    answeredUnknowable: NONE,
    latencyMs: { p50: 1, p95: 2, n: 10 },
    ...values,
  };
}

function method(name: EvalMethod, overall: MetricBlock, byCategory: MethodSummary['byCategory'] = []): MethodSummary {
  return { method: name, overall, byCategory };
}

const locomo: DatasetSummary = {
  dataset: 'locomo',
  cases: 5,
  queries: 999,
  methods: [
    method(
      'dense',
      block({
        queries: 990,
        atK: [
          atK(5, { evidenceRecall: m(0.123), sessionRecall: m(0.301) }),
          atK(10, { evidenceRecall: m(0.456), sessionRecall: m(0.5), tokens: m(812.4), recalledAfterCutoff: m(0.02) }),
        ],
        abstainedOnUnanswerable: m(0.25, 4),
        falseAbstention: m(0.1),
        latencyMs: { p50: 12.34, p95: 80, n: 990 },
      }),
      [{ category: 'multi-hop', ...block({ queries: 142, atK: [atK(5), atK(10, { evidenceRecall: m(0.333) })] }) }],
    ),
    method(
      'nocturne',
      block({
        queries: 999,
        atK: [
          atK(5, { evidenceRecall: m(0.789), sessionRecall: m(0.8) }),
          atK(10, { evidenceRecall: m(0.912), sessionRecall: m(0.95), tokens: m(301.6) }),
        ],
        abstainedOnUnanswerable: m(0.5, 4),
        latencyMs: { p50: 250, p95: 1234.56, n: 999 },
      }),
      [
        { category: 'multi-hop', ...block({ queries: 142, atK: [atK(5), atK(10, { evidenceRecall: m(0.667) })] }) },
        { category: 'odd | <name> & co', ...block({ queries: 3, atK: [atK(5), atK(10, { evidenceRecall: m(1) })] }) },
      ],
    ),
  ],
  failedRuns: null,
};

const beam: DatasetSummary = {
  dataset: 'beam',
  cases: 10,
  queries: 200,
  methods: [
    method(
      'nocturne',
      block({
        atK: [atK(5), atK(10, { evidenceRecall: m(0.4), updateOrdered: m(0.75, 20), updateFound: m(0.9, 20) })],
      }),
    ),
  ],
  failedRuns: null,
};

const whoAndWhen: DatasetSummary = {
  dataset: 'who-and-when',
  cases: 92,
  queries: 0,
  methods: [],
  failedRuns: {
    runs: 92,
    withNotes: m(0.815, 92),
    withFailureLesson: m(0.5, 92),
    nocturne: { stepExact: m(0.163, 92), stepWithinOne: m(0.304, 92), agent: m(0.543, 92) },
    firstAgentStep: { stepExact: m(0.087, 92), stepWithinOne: m(0.207, 92), agent: m(0.402, 92) },
  },
};

const tau: DatasetSummary = {
  dataset: 'tau-bench',
  cases: 25,
  queries: 0,
  methods: [],
  failedRuns: {
    runs: 51,
    withNotes: m(0.6, 51),
    withFailureLesson: m(0.2, 51),
    nocturne: { stepExact: NONE, stepWithinOne: NONE, agent: NONE },
    firstAgentStep: { stepExact: NONE, stepWithinOne: NONE, agent: NONE },
  },
};

const summary: EvalSummary = {
  meta: {
    commit: 'abc1234',
    embedder: 'nomic <embed> & co',
    cutoff: '2023-06-01',
    seconds: { consolidate: 42.5 },
    seed: 7,
  },
  ks: [5, 10],
  headlineK: 10,
  datasets: [locomo, beam, tau, whoAndWhen],
};

/** The rows of the first Markdown table after `heading`, as header → cell maps. */
function tableAfter(markdown: string, heading: string): Map<string, string>[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith(heading));
  expect(start, `heading ${heading}`).toBeGreaterThanOrEqual(0);
  const first = lines.findIndex((line, i) => i > start && line.startsWith('|'));
  const rows: string[][] = [];
  for (let i = first; i < lines.length && lines[i]?.startsWith('|'); i += 1) {
    // Split on unescaped pipes only: an escaped `\|` belongs to the cell.
    rows.push(
      (lines[i] as string)
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
  }
  const [header, , ...body] = rows;
  return body.map((cells) => {
    expect(cells.length).toBe(header?.length);
    return new Map(cells.map((cell, i) => [header?.[i] ?? '', cell]));
  });
}

function row(rows: Map<string, string>[], first: string): Map<string, string> {
  const found = rows.find((r) => [...r.values()][0] === first);
  expect(found, `row ${first}`).toBeDefined();
  return found as Map<string, string>;
}

describe('renderMarkdown', () => {
  const markdown = renderMarkdown(summary, { charts: { locomo: 'charts/locomo recall (v1).svg' } });

  it("puts each method's numbers in its own row, as percents with one decimal", () => {
    const rows = tableAfter(markdown, '## LoCoMo');
    const dense = row(rows, 'dense');
    expect(dense.get('Questions')).toBe('990');
    expect(dense.get('Evidence R@5')).toBe('12.3%');
    expect(dense.get('Evidence R@10')).toBe('45.6%');
    expect(dense.get('Session R@5')).toBe('30.1%');
    expect(dense.get('Abstained (unanswerable)')).toBe('25.0%');
    expect(dense.get('False abstention')).toBe('10.0%');
    expect(dense.get('After cutoff @10')).toBe('2.0%');
    expect(dense.get('Tokens/query @10')).toBe('812');
    expect(dense.get('p50 ms')).toBe('12.3');
    expect(dense.get('p95 ms')).toBe('80.0');
    const nocturne = row(rows, 'nocturne');
    expect(nocturne.get('Evidence R@5')).toBe('78.9%');
    expect(nocturne.get('Evidence R@10')).toBe('91.2%');
    expect(nocturne.get('Tokens/query @10')).toBe('302');
    expect(nocturne.get('p95 ms')).toBe('1234.6');
  });

  it('states how many questions each family of percents is over', () => {
    expect(markdown).toContain('Questions with gold evidence before the cutoff: 10; unanswerable: 4.');
  });

  it('leaves out columns no method has a value for, and shows them where one does', () => {
    const locomoHeaders = [...(tableAfter(markdown, '## LoCoMo')[0]?.keys() ?? [])];
    expect(locomoHeaders).not.toContain('Update ordered @10');
    expect(locomoHeaders).not.toContain('Answered unknowable');
    const beamRow = row(tableAfter(markdown, '## BEAM'), 'nocturne');
    expect(beamRow.get('Update ordered @10')).toBe('75.0% of 20');
    expect(beamRow.get('Update found @10')).toBe('90.0% of 20');
    expect(beamRow.get('Session R@5')).toBeUndefined();
  });

  it('tables recall at the headline k by category, with a dash where a method has none', () => {
    const rows = tableAfter(markdown, '### Evidence recall@10 by category');
    expect(row(rows, 'multi-hop').get('dense')).toBe('33.3%');
    expect(row(rows, 'multi-hop').get('nocturne')).toBe('66.7%');
    expect(row(rows, 'multi-hop').get('Questions')).toBe('142');
    const odd = row(rows, 'odd \\| &lt;name&gt; &amp; co');
    expect(odd.get('dense')).toBe('–');
    expect(odd.get('nocturne')).toBe('100.0%');
  });

  it('reports failed runs against the baseline, and says when a dataset has no attribution labels', () => {
    const rows = tableAfter(markdown, '## Who&When');
    expect([...row(rows, 'nocturne').values()]).toEqual(['nocturne', '16.3%', '30.4%', '54.3%']);
    expect([...row(rows, 'first agent step (baseline)').values()]).toEqual([
      'first agent step (baseline)',
      '8.7%',
      '20.7%',
      '40.2%',
    ]);
    expect(markdown).toContain('92 failed runs; 81.5% yielded at least one note, 50.0% a note explaining the failure.');
    const tauSection = markdown.slice(markdown.indexOf('## tau-bench'), markdown.indexOf('## Who&When'));
    expect(tauSection).toContain(
      '51 failed runs; 60.0% yielded at least one note, 20.0% a note explaining the failure.',
    );
    expect(tauSection).toContain('attribution is not measured');
  });

  it('lists the published anchors', () => {
    const rows = tableAfter(markdown, '## Published anchors');
    const turns = rows.find((r) => r.get('Setup') === 'DRAGON retriever over dialog turns');
    expect([turns?.get('@5'), turns?.get('@10')]).toEqual(['56.7%', '66.2%']);
    expect(rows.find((r) => r.get('Setup') === 'DRAGON retriever over generated observations')?.get('@5')).toBe(
      '56.2%',
    );
    expect(rows.find((r) => r.get('Setup') === 'BM25 over sessions')?.get('@5')).toBe('63.4%');
    expect(rows.find((r) => r.get('Setup') === 'dense retriever over sessions')?.get('@5')).toBe('72.0%');
  });

  it("links a dataset's chart when its path is given, and only then", () => {
    expect(markdown).toContain('![recall@k](charts/locomo%20recall%20%28v1%29.svg)');
    expect(markdown.match(/!\[recall@k\]/g)).toHaveLength(1);
    expect(renderMarkdown(summary)).not.toContain('![');
  });

  it('prints run metadata, escaping it', () => {
    const rows = tableAfter(markdown, '# Nocturne evaluation');
    expect(row(rows, 'Commit').get('Value')).toBe('abc1234');
    expect(row(rows, 'Embedder').get('Value')).toBe('nomic &lt;embed&gt; &amp; co');
    expect(row(rows, 'Seconds: consolidate').get('Value')).toBe('42.5');
    expect(row(rows, 'seed').get('Value')).toBe('7');
  });

  it('is the same text for the same summary', () => {
    expect(renderMarkdown(summary, { charts: { locomo: 'charts/locomo recall (v1).svg' } })).toBe(markdown);
  });
});

const ENTITY = /&(?!amp;|lt;|gt;|quot;|apos;)/;

/**
 * A small XML well-formedness check: every `<` opens a well-formed tag, tags nest and close, one
 * root, and no bare `&` or `>` in text or attribute values. Returns the element names opened.
 */
function checkXml(xml: string): string[] {
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<>]*")*)\s*(\/?)>/y;
  const stack: string[] = [];
  const opened: string[] = [];
  let roots = 0;
  let i = 0;
  while (i < xml.length) {
    const next = xml.indexOf('<', i);
    const text = xml.slice(i, next === -1 ? xml.length : next);
    expect(text, `text at ${i}`).not.toMatch(ENTITY);
    expect(text).not.toContain('>');
    if (stack.length === 0) expect(text.trim(), 'text outside the root').toBe('');
    if (next === -1) break;
    tag.lastIndex = next;
    const match = tag.exec(xml);
    expect(match, `well-formed tag at ${next}: ${xml.slice(next, next + 40)}`).not.toBeNull();
    const [whole, closing, name, attributes, selfClosing] = match as RegExpExecArray;
    expect(attributes).not.toMatch(ENTITY);
    if (closing) {
      expect(stack.pop()).toBe(name);
    } else {
      if (stack.length === 0) roots += 1;
      opened.push(name as string);
      if (!selfClosing) stack.push(name as string);
    }
    i = next + whole.length;
  }
  expect(stack).toEqual([]);
  expect(roots).toBe(1);
  return opened;
}

function bars(svg: string): { method: string; k: number; height: number }[] {
  return [...svg.matchAll(/<rect class="bar" data-method="([^"]+)" data-k="(\d+)"[^>]* height="([\d.]+)"/g)].map(
    ([, method, k, height]) => ({
      method: method as string,
      k: Number(k),
      height: Number(height),
    }),
  );
}

describe('renderRecallChart', () => {
  const svg = renderRecallChart(summary, 'locomo');

  it('is well-formed XML with an svg root', () => {
    const elements = checkXml(svg);
    expect(elements[0]).toBe('svg');
    expect(svg).toContain('xmlns="http://www.w3.org/2000/svg"');
  });

  it('has one bar per method and k, as tall as its recall', () => {
    const drawn = bars(svg);
    expect(drawn.map((b) => `${b.method}@${b.k}`)).toEqual(['dense@5', 'nocturne@5', 'dense@10', 'nocturne@10']);
    const full = 220; // the plot's height: 100% recall
    expect(drawn.map((b) => b.height)).toEqual([0.123, 0.789, 0.456, 0.912].map((r) => Number((r * full).toFixed(2))));
  });

  it('has a title, axis labels and one legend entry per method', () => {
    expect(svg).toContain('LoCoMo: evidence recall@k by method');
    expect(svg).toContain('Evidence recall (%)');
    expect(svg).toContain('k = 5');
    expect(svg).toContain('k = 10');
    expect(svg.match(/<g class="legend-item">/g)).toHaveLength(2);
  });

  it('escapes text from the data', () => {
    expect(svg).toContain('embedder nomic &lt;embed&gt; &amp; co');
    expect(svg).not.toContain('<embed>');
  });

  it('marks a method without a value instead of drawing a bar of 0', () => {
    const gap: EvalSummary = {
      ...summary,
      datasets: [{ ...beam, methods: [method('dense', block()), ...beam.methods] }],
    };
    const chart = renderRecallChart(gap, 'beam');
    checkXml(chart);
    expect(bars(chart).map((b) => `${b.method}@${b.k}`)).toEqual(['nocturne@10']);
    expect(chart.match(/class="no-value"/g)).toHaveLength(3);
  });

  it('is the same bytes for the same summary, and refuses a dataset it has no results for', () => {
    expect(renderRecallChart(summary, 'locomo')).toBe(svg);
    expect(() => renderRecallChart({ ...summary, datasets: [] }, 'locomo')).toThrow(/no locomo results/);
  });
});
