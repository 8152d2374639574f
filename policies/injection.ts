import { INSTRUCTION_PATTERNS, SQUASHED_PATTERNS, type InstructionKind } from './untrusted/patterns.ts';
import { memoByText } from './memo.ts';
import { foldForScreening, screeningForms, squash } from './untrusted/normalize.ts';

/**
 * "Data, not instructions": text that came from tools or retrieved content and reads like an
 * instruction to the agent is never committed as memory. Screening runs on raw text (before
 * redaction, which would hide the address an exfiltration names), in every form of
 * `untrusted/normalize.ts`.
 */

export type { InstructionKind } from './untrusted/patterns.ts';
export { UNTRUSTED_SOURCES, isUntrusted, toolDerived } from './untrusted/trust.ts';

/**
 * The kinds of instruction found in `text`, each once, in pattern order; empty when it reads as
 * data. Every proposal citing an untrusted record screens its text again: remembered by text
 * (shared: do not change the list).
 */
export const instructionKinds: (text: string) => readonly InstructionKind[] = memoByText(kindsOf);

function kindsOf(text: string): InstructionKind[] {
  if (text.trim() === '') return [];
  const forms = screeningForms(text);
  const squashed = squash(foldForScreening(text));
  const found = new Set<InstructionKind>();
  for (const p of INSTRUCTION_PATTERNS) if (forms.some((f) => p.pattern.test(f))) found.add(p.kind);
  for (const p of SQUASHED_PATTERNS) if (p.pattern.test(squashed)) found.add(p.kind);
  return [...found];
}

export function looksLikeInstruction(text: string): boolean {
  return instructionKinds(text).length > 0;
}
