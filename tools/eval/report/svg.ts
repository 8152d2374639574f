import type { DatasetSummary, EvalSummary, MethodSummary } from '../summary-types.ts';
import { EVAL_METHODS, type EvalDataset, type EvalMethod } from '../types.ts';
import { DATASET_TITLES } from './format.ts';

/** One colour per method, the same in every chart; Nocturne's stands out from the baselines. */
const METHOD_COLORS: Record<EvalMethod, string> = {
  'no-memory': '#9aa0a6',
  'recent-history': '#e8a33d',
  'full-text': '#4f81bd',
  dense: '#6aa84f',
  nocturne: '#8e3fb5',
};

const LAYOUT = {
  /** Wide enough for a `100.0` label at font size 8. */
  barWidth: 28,
  barGap: 3,
  groupGap: 28,
  plotHeight: 220,
  left: 64,
  right: 16,
  top: 56,
  /** x labels, the axis title and the legend rows below the plot. */
  bottom: 56,
  legendRow: 18,
  legendItem: 130,
  minPlotWidth: 320,
  /** Rough average glyph widths of the title (15px bold) and subtitle (11px), to size the canvas to its text. */
  titleCharWidth: 9,
  subtitleCharWidth: 6.2,
};

const Y_TICKS = [0, 0.25, 0.5, 0.75, 1];

/** Escapes text and attribute values so a name with `<`, `&` or quotes cannot break the document. */
function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Coordinates with at most two decimals, so the same summary always yields the same bytes. */
function num(value: number): string {
  return value.toFixed(2).replace(/\.?0+$/, '');
}

interface Geometry {
  width: number;
  height: number;
  plotWidth: number;
  groupWidth: number;
  legendPerRow: number;
  plotBottom: number;
}

function geometry(methods: number, ks: number, title: string, subtitle: string): Geometry {
  const groupWidth = methods * LAYOUT.barWidth + Math.max(0, methods - 1) * LAYOUT.barGap;
  const textWidth = Math.max(title.length * LAYOUT.titleCharWidth, subtitle.length * LAYOUT.subtitleCharWidth);
  const plotWidth = Math.ceil(Math.max(LAYOUT.minPlotWidth, ks * groupWidth + (ks + 1) * LAYOUT.groupGap, textWidth));
  const legendPerRow = Math.max(1, Math.floor(plotWidth / LAYOUT.legendItem));
  const legendRows = Math.ceil(methods / legendPerRow);
  const plotBottom = LAYOUT.top + LAYOUT.plotHeight;
  return {
    width: LAYOUT.left + plotWidth + LAYOUT.right,
    height: plotBottom + LAYOUT.bottom + legendRows * LAYOUT.legendRow,
    plotWidth,
    groupWidth,
    legendPerRow,
    plotBottom,
  };
}

function yOf(g: Geometry, share: number): number {
  return g.plotBottom - share * LAYOUT.plotHeight;
}

function groupStart(g: Geometry, ks: number, index: number): number {
  // Groups are centred in the plot, with equal gaps between and around them.
  const gap = (g.plotWidth - ks * g.groupWidth) / (ks + 1);
  return LAYOUT.left + gap + index * (g.groupWidth + gap);
}

function axes(g: Geometry): string[] {
  const out: string[] = [];
  for (const tick of Y_TICKS) {
    const y = num(yOf(g, tick));
    out.push(
      `<line class="grid" x1="${num(LAYOUT.left)}" y1="${y}" x2="${num(LAYOUT.left + g.plotWidth)}" y2="${y}" stroke="#e0e0e0"/>`,
    );
    out.push(
      `<text x="${num(LAYOUT.left - 6)}" y="${y}" text-anchor="end" dominant-baseline="middle" font-size="11">${tick * 100}%</text>`,
    );
  }
  out.push(
    `<line x1="${num(LAYOUT.left)}" y1="${num(LAYOUT.top)}" x2="${num(LAYOUT.left)}" y2="${num(g.plotBottom)}" stroke="#333"/>`,
  );
  out.push(
    `<line x1="${num(LAYOUT.left)}" y1="${num(g.plotBottom)}" x2="${num(LAYOUT.left + g.plotWidth)}" y2="${num(g.plotBottom)}" stroke="#333"/>`,
  );
  const midY = num(LAYOUT.top + LAYOUT.plotHeight / 2);
  out.push(
    `<text x="16" y="${midY}" text-anchor="middle" font-size="12" transform="rotate(-90 16 ${midY})">Evidence recall (%)</text>`,
  );
  out.push(
    `<text x="${num(LAYOUT.left + g.plotWidth / 2)}" y="${num(g.plotBottom + 36)}" text-anchor="middle" font-size="12">k (results per question)</text>`,
  );
  return out;
}

function bars(g: Geometry, methods: readonly MethodSummary[], ks: readonly number[]): string[] {
  const out: string[] = [];
  ks.forEach((k, groupIndex) => {
    const start = groupStart(g, ks.length, groupIndex);
    out.push(
      `<text x="${num(start + g.groupWidth / 2)}" y="${num(g.plotBottom + 16)}" text-anchor="middle" font-size="11">k = ${k}</text>`,
    );
    methods.forEach((method, i) => {
      const x = start + i * (LAYOUT.barWidth + LAYOUT.barGap);
      const recall = method.overall.atK.find((a) => a.k === k)?.evidenceRecall;
      const center = num(x + LAYOUT.barWidth / 2);
      if (!recall || recall.mean === null) {
        out.push(
          `<text class="no-value" data-method="${escapeXml(method.method)}" data-k="${k}" x="${center}" y="${num(g.plotBottom - 4)}" text-anchor="middle" font-size="8">n/a</text>`,
        );
        return;
      }
      const y = yOf(g, recall.mean);
      const label = `${method.method}, evidence recall@${k}: ${(recall.mean * 100).toFixed(1)}% (n=${recall.n})`;
      out.push(
        `<rect class="bar" data-method="${escapeXml(method.method)}" data-k="${k}" x="${num(x)}" y="${num(y)}" width="${num(LAYOUT.barWidth)}" height="${num(g.plotBottom - y)}" fill="${METHOD_COLORS[method.method]}"><title>${escapeXml(label)}</title></rect>`,
        `<text x="${center}" y="${num(y - 3)}" text-anchor="middle" font-size="8">${(recall.mean * 100).toFixed(1)}</text>`,
      );
    });
  });
  return out;
}

function legend(g: Geometry, methods: readonly MethodSummary[]): string[] {
  return methods.map((method, i) => {
    const x = LAYOUT.left + (i % g.legendPerRow) * LAYOUT.legendItem;
    const y = g.plotBottom + LAYOUT.bottom + Math.floor(i / g.legendPerRow) * LAYOUT.legendRow;
    return [
      `<g class="legend-item">`,
      `<rect x="${num(x)}" y="${num(y - 10)}" width="12" height="12" fill="${METHOD_COLORS[method.method]}"/>`,
      `<text x="${num(x + 18)}" y="${num(y)}" font-size="12">${escapeXml(method.method)}</text>`,
      `</g>`,
    ].join('');
  });
}

function subtitle(summary: EvalSummary): string {
  const parts = ['Mean share of gold evidence in the top k'];
  if (typeof summary.meta.embedder === 'string') parts.push(`embedder ${summary.meta.embedder}`);
  if (typeof summary.meta.commit === 'string') parts.push(`commit ${summary.meta.commit}`);
  return parts.join(' · ');
}

function datasetOf(summary: EvalSummary, dataset: EvalDataset): DatasetSummary {
  const found = summary.datasets.find((d) => d.dataset === dataset);
  if (!found) throw new Error(`the summary has no ${dataset} results to chart`);
  return found;
}

/** Grouped bars of evidence recall@k: one group per k, one bar per method, as a standalone SVG. */
export function renderRecallChart(summary: EvalSummary, dataset: EvalDataset): string {
  const data = datasetOf(summary, dataset);
  const methods = [...data.methods].sort((a, b) => EVAL_METHODS.indexOf(a.method) - EVAL_METHODS.indexOf(b.method));
  const title = `${DATASET_TITLES[dataset]}: evidence recall@k by method`;
  const note = subtitle(summary);
  const g = geometry(methods.length, summary.ks.length, title, note);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${num(g.width)}" height="${num(g.height)}" viewBox="0 0 ${num(g.width)} ${num(g.height)}" font-family="sans-serif" role="img">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${num(LAYOUT.left)}" y="22" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
    `<text x="${num(LAYOUT.left)}" y="40" font-size="11" fill="#555">${escapeXml(note)}</text>`,
    ...axes(g),
    ...bars(g, methods, summary.ks),
    ...legend(g, methods),
    `</svg>`,
    '',
  ].join('\n');
}
