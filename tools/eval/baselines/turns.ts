import type { EvalRecord } from '../types.ts';

/** A raw turn as the raw-turn baselines index it: who said it, and what. */
export interface Turn {
  goldId: string;
  goldSession: string;
  text: string;
  observedAt: string;
}

/** A ranked hit: the index of a turn and the method's own score for it (higher is better). */
export interface TurnHit {
  turn: number;
  score: number;
}

/** What a raw-turn baseline answers: turns, best first. */
export interface TurnRetriever {
  search(query: string, k: number): Promise<TurnHit[]>;
}

/**
 * The records a raw-turn baseline keeps: everything with text, written as `speaker: text` so a
 * question naming a person can match (Nocturne's statement notes name the speaker too).
 */
export function turnsOf(records: readonly EvalRecord[]): Turn[] {
  return records.flatMap(({ goldId, goldSession, record }) => {
    const text = record.text?.trim();
    if (!text) return [];
    const speaker = record.userId ?? record.role ?? record.kind;
    return [{ goldId, goldSession, text: `${speaker}: ${text}`, observedAt: record.observedAt }];
  });
}

/** Approximate tokens, as recall counts them (chars / 4). */
export const approxTokens = (text: string): number => Math.ceil(text.length / 4);
