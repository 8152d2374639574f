import type { RecallRequest } from '../../src/recall/contract.ts';
import { ABLATION_NAMES, type AblationName } from '../choices.ts';

/**
 * Named switches that turn one part of the pipeline off for a run (`nocturne eval --ablate`), so
 * a report can say which change moved which number. Each switch says what it does and how it
 * changes what the pipeline is asked; adding one is adding an entry here.
 */
interface Ablation {
  describe: string;
  /** The recall request the evaluation sends under this switch. */
  recall?: (request: RecallRequest) => RecallRequest;
  /** Why the switch changes nothing yet, when it cannot take effect in this build. */
  notInEffect?: () => string | undefined;
}

const ABLATIONS = {
  records: {
    describe: 'recall leaves raw records out: notes (and digests) only',
    recall: (request) => ({ ...request, include: ['notes'] }),
  },
  asker: {
    describe: 'recall is not told who asks: a question in the first person is matched as written',
    recall: ({ askedBy: _asker, ...request }) => request,
  },
} satisfies Record<AblationName, Ablation>;

/** `records,…` → the named switches; an unknown name is an error naming the known ones. */
export function parseAblations(text: string): AblationName[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const name of names)
    if (!(name in ABLATIONS))
      throw new Error(`--ablate: unknown switch ${JSON.stringify(name)}; known: ${ABLATION_NAMES.join(', ')}`);
  return [...new Set(names as AblationName[])];
}

/** The recall request with every switch of the run applied, in the order given. */
export function ablatedRecall(request: RecallRequest, ablations: readonly AblationName[]): RecallRequest {
  return ablations.reduce<RecallRequest>((r, name) => (ABLATIONS[name] as Ablation).recall?.(r) ?? r, request);
}

/** One line per switch: what it does, and whether it takes effect in this build. */
export function describeAblations(ablations: readonly AblationName[]): string[] {
  return ablations.map((name) => {
    const a = ABLATIONS[name] as Ablation;
    const why = a.notInEffect?.();
    return `${name}: ${a.describe}${why ? ` (not in effect: ${why})` : ''}`;
  });
}
