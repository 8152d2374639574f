import type { ArchivedRecord, Episode, Finding } from '../src/contracts/episode.ts';
import { multiAgent } from './attribution-problems.ts';
import { sentences } from './text.ts';

/**
 * The answer a failed multi-agent run ended with, traced to where it came from. The run failed,
 * so the answer it concluded with was wrong; agents that took it up after the step that first
 * stated it (or first printed it, in a tool's output) only repeated it. That step is where the
 * run went wrong, and the lesson is that its answer was adopted without an independent check.
 * Most such failures show no error at all: a wrong plan, a wrong number, a fabricated fact.
 */

/** An explicit verdict line, as orchestrators print it: `FINAL ANSWER: 42`. */
const FINAL_ANSWER = /\bFINAL ANSWER:[ \t]*([^\n]{1,80})/;
/** Words a message concludes with: it gives the run's answer. */
const CONCLUDES = /\b(final answer|the answer is|answer:|therefore|thus|in conclusion|TERMINATE)\b/i;
/** Markers of agreement without content (`TERMINATE`): not the message that states an answer. */
const SIGN_OFF = /\bTERMINATE\b/g;
/** Fewer characters than this, once the sign-off is gone, state no answer. @default 20 */
export const MIN_CONCLUSION_CHARS = 20;
/**
 * What an answer is written as: a quoted or bold phrase, or a number (with a currency sign or a
 * percent). Code placeholders (`{total}`) are not answers.
 */
const ANSWER_VALUE = /"([^"\n]{1,80})"|\*\*([^*\n]{1,80})\*\*|(?<![\w.])([$€£]?\d[\d,]*(?:\.\d+)?%?)(?!\w)/g;
/** A sentence stating the answer shorter than this is quoted with the sentence before it. @default 40 */
export const MIN_QUOTE_CHARS = 40;
/** Longest quote of the answer's first statement in a lesson, in characters. @default 300 */
export const MAX_ANSWER_QUOTE_CHARS = 300;

const failedRun = (ep: Episode): boolean =>
  ep.records.some((r) => r.record.kind === 'task_outcome' && r.record.outcome?.status === 'failure');

const said = (r: ArchivedRecord): boolean => r.record.kind === 'agent_message';
/** Records that can introduce a value: what an agent said and what a tool printed for it. */
const introduces = (r: ArchivedRecord): boolean =>
  said(r) || r.record.kind === 'tool_result' || r.record.kind === 'error';

/** The answer stated by the message that concludes the run, with that message; undefined when none does. */
export function concludedAnswer(ep: Episode): { answer: string; at: number } | undefined {
  for (let i = ep.records.length - 1; i >= 0; i--) {
    const r = ep.records[i] as ArchivedRecord;
    if (!said(r)) continue;
    const text = r.record.text ?? '';
    const verdict = FINAL_ANSWER.exec(text)?.[1]?.trim();
    if (verdict) return { answer: verdict, at: i };
    if (text.replace(SIGN_OFF, '').trim().length < MIN_CONCLUSION_CHARS || !CONCLUDES.test(text)) continue;
    // A value the task as posed already states (a name, a year, the phrase to translate) is not the answer.
    const task = ep.records[0]?.record.text ?? '';
    const answer = answerValues(text.replace(SIGN_OFF, ''))
      .filter((v) => !states(task, v))
      .at(-1);
    return answer ? { answer, at: i } : undefined;
  }
  return undefined;
}

export function answerValues(text: string): string[] {
  return [...text.matchAll(ANSWER_VALUE)]
    .map((m) => (m[1] ?? m[2] ?? m[3] ?? '').trim())
    .filter((v) => v !== '' && !/[{}]/.test(v));
}

/** Whether `text` states `value` as a whole: `12` is not in `120` nor in `3.12`. */
export function states(text: string, value: string): boolean {
  return new RegExp(`(?<![\\w.])${escaped(value)}(?!\\w)`, 'i').test(text);
}

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The wrong answer a failed multi-agent run ended with, citing the step that first stated it and the conclusion. */
export function uncheckedAnswers(ep: Episode): Finding[] {
  if (!multiAgent(ep) || !failedRun(ep)) return [];
  const concluded = concludedAnswer(ep);
  if (!concluded) return [];
  const { answer, at } = concluded;
  // The first record is the task as posed: what it states was not introduced by the run.
  const first = ep.records.slice(1, at + 1).find((r) => introduces(r) && states(r.record.text ?? '', answer));
  if (!first) return [];
  const outcome = ep.records.find((r) => r.record.kind === 'task_outcome');
  const conclusion = ep.records[at] as ArchivedRecord;
  return [
    {
      type: 'unchecked_answer',
      episodeKey: ep.key,
      summary: quote(first.record.text ?? '', answer),
      // The conclusion itself when no earlier step stated the answer: then it was given without support.
      evidence: [...new Set([first, conclusion]), ...(outcome ? [outcome] : [])],
    },
  ];
}

/** The sentence of `text` that states the answer, shortened at a word. */
function quote(text: string, answer: string): string {
  const all = text.replace(SIGN_OFF, '').split(/\n+/).flatMap(sentences);
  const at = all.findIndex((s) => states(s, answer));
  // A bare value ("9.") says little: the sentence before it gives it its subject.
  const sentence =
    at < 0
      ? answer
      : all.slice((all[at] as string).length < MIN_QUOTE_CHARS ? Math.max(0, at - 1) : at, at + 1).join(' ');
  const t = sentence.replace(/\s+/g, ' ').trim();
  if (t.length <= MAX_ANSWER_QUOTE_CHARS) return t;
  const where = t.search(new RegExp(escaped(answer), 'i'));
  // Keep the answer itself in the quote: cut before it when the sentence is long.
  const start = where > MAX_ANSWER_QUOTE_CHARS / 2 ? t.lastIndexOf(' ', where - MAX_ANSWER_QUOTE_CHARS / 2) + 1 : 0;
  const end = t.lastIndexOf(' ', start + MAX_ANSWER_QUOTE_CHARS);
  return t.slice(start, end > start + answer.length ? end : start + MAX_ANSWER_QUOTE_CHARS);
}
