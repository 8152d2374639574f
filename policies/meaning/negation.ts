import { isStopword, wordTokens } from '../text.ts';
import { memoByText } from '../memo.ts';
import { formsOf, spellOut, stem } from './normalize.ts';

/**
 * Which words of a text are said to hold and which are denied. A negation ("not", "no",
 * "never", "n't", "without", "refuse") denies the rest of its clause; the far side of a
 * contrast ("X instead of Y", "X rather than Y", "prefers X over Y", and "X, not Y", whose
 * comma opens the denied clause) is denied too. Word overlap cannot tell "returns amounts in
 * cents" from "does not return amounts in cents"; these tags can.
 */

export interface PolarWord {
  /** The word's comparable form (see normalize.ts). */
  form: string;
  /** The word lies in a negation's scope or on the dispreferred side of a contrast. */
  denied: boolean;
}

const NEGATIONS = new Set(['not', 'no', 'never', 'without', 'nobody', 'nothing', 'none', 'neither', 'nor', 'cannot']);
const REFUSALS = new Set(['refuse', 'refuses', 'refused', 'refusing', 'declined', 'declines', 'decline']);
/** Two-word contrasts whose second half is denied. */
const CONTRASTS = [
  ['instead', 'of'],
  ['rather', 'than'],
];
/** "over" is a contrast only after a verb of preference ("prefers X over Y", not "over $100"); "than" only after "rather". */
const PREFERENCE = /^(prefer|favou?r|like|love|choose|chose|chosen|pick|want|rather)/;
/** A clause ends at sentence or list punctuation followed by a space, or at a turn of contrast. */
const CLAUSE_BREAK = /[.;:!?,()\n]+(?=\s|$)|\s[-–—]\s|\b(?:but|however|although|though|whereas|yet)\b/giu;

/**
 * Verbs of attitude or speech whose negation is about their object ("I don't want prose, show
 * me a table" denies the prose, not wanting): their own polarity says nothing a rewording must keep.
 */
export const TRANSPARENT = new Set(
  [
    'want',
    'like',
    'need',
    'prefer',
    'love',
    'wish',
    'hope',
    'think',
    'believe',
    'say',
    'said',
    'ask',
    'asked',
    'tell',
    'told',
    'talk',
    'speak',
    'chat',
  ].map((w) => stem(w)),
);

/**
 * The content words of `text`, each tagged with whether the text denies it. Every proposal
 * compares its value with the text of each record it cites, and several proposals cite the
 * same records: remembered by text (shared: do not change the list).
 */
export const polarWords: (text: string) => readonly PolarWord[] = memoByText(polarWordsOf);

function polarWordsOf(text: string): PolarWord[] {
  const out: PolarWord[] = [];
  for (const clause of spellOut(text).split(CLAUSE_BREAK)) {
    if (!clause) continue;
    const words = wordTokens(clause);
    let denied = false;
    let preference = false;
    let rather = false;
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      if (NEGATIONS.has(w) || REFUSALS.has(w)) {
        denied = true;
        continue;
      }
      const contrast = CONTRASTS.find(([a, b]) => w === a && words[i + 1] === b);
      const comparison = (w === 'over' && preference) || (w === 'than' && rather);
      if (contrast || comparison) {
        denied = true;
        i += contrast ? 1 : 0;
        continue;
      }
      if (PREFERENCE.test(w)) preference = true;
      if (w === 'rather') rather = true;
      if (isStopword(w)) continue;
      for (const f of formsOf(w, words[i - 1])) if (!f.optional) out.push({ form: f.form, denied });
    }
  }
  return out;
}

/** Each form of `words` with the polarities it occurs with. */
export function polarityByForm(words: readonly PolarWord[]): Map<string, Set<boolean>> {
  const out = new Map<string, Set<boolean>>();
  for (const w of words) {
    const seen = out.get(w.form) ?? new Set<boolean>();
    seen.add(w.denied);
    out.set(w.form, seen);
  }
  return out;
}

export interface PolarityComparison {
  /** Shared words a text denies where the other only asserts them, or the reverse. */
  flipped: string[];
  /** Shared words both texts deny. */
  agreeing: string[];
}

/**
 * Compares the polarity of the words a claim shares with its evidence. Only words with one
 * polarity on each side count, and only where one side denies them: a word asserted in both is
 * no sign either way, and one the evidence both asserts and denies settles nothing.
 */
export function comparePolarity(claim: string, evidence: readonly string[]): PolarityComparison {
  const inClaim = polarityByForm(polarWords(claim));
  const inEvidence = polarityByForm(evidence.flatMap(polarWords));
  const flipped: string[] = [];
  const agreeing: string[] = [];
  for (const [form, c] of inClaim) {
    const e = inEvidence.get(form);
    if (!e || c.size !== 1 || e.size !== 1 || TRANSPARENT.has(form)) continue;
    const [claimDenies] = c;
    const [evidenceDenies] = e;
    if (!claimDenies && !evidenceDenies) continue;
    (claimDenies === evidenceDenies ? agreeing : flipped).push(form);
  }
  return { flipped, agreeing };
}

/** The claim inverts its evidence: more shared words change polarity than keep it. */
export function invertsEvidence(claim: string, evidence: readonly string[]): PolarityComparison | undefined {
  const cmp = comparePolarity(claim, evidence);
  return cmp.flipped.length > cmp.agreeing.length ? cmp : undefined;
}
