import type { EvalCase, EvalDataset } from './types.ts';

/** A case with its 1-based position among the dataset's cases in file order (splits are named by it). */
export interface PositionedCase {
  position: number;
  evalCase: EvalCase;
}

/** `1-3`, `4,5`, `1-3,5` → the 1-based case positions, ascending, each once. */
export function parseCaseSelection(text: string): number[] {
  const positions = new Set<number>();
  for (const part of text.split(',').map((s) => s.trim())) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part);
    const from = Number(range?.[1]);
    const to = Number(range?.[2] ?? range?.[1]);
    if (!range || from < 1 || to < from)
      throw new Error(`--cases: expected 1-based positions or ranges like 1-3,5, got ${JSON.stringify(part)}`);
    for (let p = from; p <= to; p++) positions.add(p);
  }
  return [...positions].sort((a, b) => a - b);
}

/** The cases at `positions` (all when absent), then only the first `limit` of those. */
export function selectCases(all: readonly EvalCase[], positions?: readonly number[], limit?: number): PositionedCase[] {
  const beyond = positions?.find((p) => p > all.length);
  if (beyond !== undefined) throw new Error(`--cases: case ${beyond} asked for, the dataset has ${all.length}`);
  const chosen = (positions ?? all.map((_, i) => i + 1)).map((position) => ({
    position,
    evalCase: all[position - 1] as EvalCase,
  }));
  return limit !== undefined ? chosen.slice(0, limit) : chosen;
}

/** A named part of a dataset's cases: tune constants on one, report on another. */
export interface CaseSplit {
  name: string;
  positions: readonly number[];
}

/**
 * LoCoMo's public half: conversations 1–3 to tune on, 4–5 to report (constants never tuned
 * there). BEAM's ten public chats: 1–5 to tune on, 6–10 to report.
 */
export const CASE_SPLITS: Partial<Record<EvalDataset, readonly CaseSplit[]>> = {
  locomo: [
    { name: 'tuning', positions: [1, 2, 3] },
    { name: 'reporting', positions: [4, 5] },
  ],
  beam: [
    { name: 'tuning', positions: [1, 2, 3, 4, 5] },
    { name: 'reporting', positions: [6, 7, 8, 9, 10] },
  ],
};
