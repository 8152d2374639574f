import { DATASET_TITLES } from '../report/format.ts';
import { escapeText, plural, table } from '../report/markdown-text.ts';
import type { EvalDataset } from '../types.ts';
import type { NotesSample, SampledNote } from './draw.ts';
import { CHECK_TITLES, RUBRIC_CHECKS } from './rubric.ts';

/** What a person judges on each note; the automatic checks only point at likely failures. */
const RUBRIC = [
  'a general statement (not a quote, a question or small talk)',
  'third person, naming who',
  'absolute time',
  'the narrowest right scope',
  'faithful to its evidence',
];

const countBy = (values: readonly string[]): string =>
  Object.entries(values.reduce<Record<string, number>>((acc, v) => ({ ...acc, [v]: (acc[v] ?? 0) + 1 }), {}))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([v, n]) => `${v} ${n}`)
    .join(', ');

/** A block quote of text from data, kept on its lines. */
const quote = (text: string): string =>
  text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');

function noteSection(s: SampledNote, i: number): string {
  const n = s.note;
  const lines = [
    `## ${i + 1}. ${n.kind} · ${escapeText(`${n.scope.level}:${n.scope.key}`)} · ${n.sourceKind} · confidence ${n.confidence.toFixed(2)} · ${n.status}`,
    '',
    `Case ${escapeText(s.caseId)}, note ${n.noteId} v${n.version}. Checks: ${s.flags.length === 0 ? 'none' : s.flags.join(', ')}.`,
    '',
    quote(n.claim),
  ];
  if (s.structure !== undefined) lines.push('', '```json', JSON.stringify(s.structure, null, 2), '```');
  lines.push('', 'Cited records:', '');
  for (const r of s.records)
    lines.push(
      `- ${escapeText(r.goldId)} (${r.kind}${r.speaker ? `, ${escapeText(r.speaker)}` : ''}, ${r.observedAt}): ${escapeText(r.text)}`,
    );
  if (s.records.length === 0) lines.push('- (no cited record of this case)');
  lines.push('', `Reading: ${RUBRIC.map((r) => `[ ] ${r}`).join(' · ')}`);
  return lines.join('\n');
}

/** `notes-sample.md`: counts and automatic checks first, then each drawn note with its evidence. */
export function renderNotesSample(dataset: EvalDataset, sample: NotesSample): string {
  const flagged = (check: string) => sample.drawn.filter((s) => s.flags.some((f) => f === check)).length;
  const parts = [
    `# Note-quality sample: ${DATASET_TITLES[dataset]}`,
    `${plural(sample.drawn.length, 'note')} drawn at random (seed ${sample.seed}) from the run's ${plural(sample.pool, 'committed note')} (every status but staged and erased).`,
    "The checks below are automatic and only point at likely failures; the verdict on each note is a reader's, against the rubric: " +
      `${RUBRIC.join('; ')}.`,
    table(
      ['Automatic check', 'Notes flagged'],
      [
        ...RUBRIC_CHECKS.map((c) => [CHECK_TITLES[c], String(flagged(c))]),
        ['any of these', String(sample.drawn.filter((s) => s.flags.length > 0).length)],
        [
          'first person and stored as a preference',
          String(sample.drawn.filter((s) => s.note.kind === 'preference' && s.flags.includes('first_person')).length),
        ],
      ],
    ),
    `By kind: ${countBy(sample.drawn.map((s) => s.note.kind)) || 'none'}. By source: ${countBy(sample.drawn.map((s) => s.note.sourceKind)) || 'none'}. By scope: ${countBy(sample.drawn.map((s) => s.note.scope.level)) || 'none'}.`,
    ...sample.drawn.map(noteSection),
  ];
  return `${parts.join('\n\n')}\n`;
}
