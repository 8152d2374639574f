import { updatesFirst } from '../../policies/recall-updates.ts';
import { bm25 } from './baselines/bm25.ts';
import { turnsOf, type Turn } from './baselines/turns.ts';
import { cutoffInstant, isAfter } from './cutoff.ts';
import { defaultDatasetPath, loadDataset } from './datasets/index.ts';
import { evidenceRecall, updateOrder } from './metrics.ts';
import type { EvalCase, EvalQuery, QueryOutcome } from './types.ts';

/**
 * The knowledge-update rule (policies/recall-updates.ts) on BM25's ranking of BEAM's raw turns,
 * without the stack: for each chat split (1–5, 6–10) evidence recall@5/@10 and how often the
 * update ranks above the original in the top 10, with and without the rule. The rule's effect
 * on a ranking, not Nocturne's: a check while tuning it.
 *
 *   node --import tsx tools/eval/updates-offline.ts [path]
 */

interface Tally {
  r5: number[];
  r10: number[];
  ordered: number[];
}

const CUTOFF = { share: 0.8 };

/** Questions whose gold evidence all lies after the cutoff are not asked (as in `nocturne eval`). */
function knowable(evalCase: EvalCase, query: EvalQuery, cutoff: string | undefined): boolean {
  if (query.unanswerable) return false;
  const times = query.goldEvidence.flatMap((id) => {
    const r = evalCase.records.find((x) => x.goldId === id);
    return r ? [Date.parse(r.record.observedAt)] : [];
  });
  return !(cutoff && times.length > 0 && times.every((t) => t > Date.parse(cutoff)));
}

function score(tally: Tally, query: EvalQuery, ranked: readonly Turn[]): void {
  const items = ranked
    .slice(0, 10)
    .map((t) => ({ goldIds: [t.goldId], goldSessions: [], score: 0, tokens: 0, afterCutoff: false }));
  const outcome = { items } as unknown as QueryOutcome;
  const r5 = evidenceRecall(query, outcome, 5);
  const r10 = evidenceRecall(query, outcome, 10);
  const order = updateOrder(query, outcome, 10);
  if (r5) tally.r5.push(r5.fraction);
  if (r10) tally.r10.push(r10.fraction);
  if (order) tally.ordered.push(order.ordered);
}

async function main(): Promise<void> {
  const cases = await loadDataset('beam', process.argv[2] ?? defaultDatasetPath('beam'));
  const tallies = new Map<string, Tally>();
  const tally = (key: string) =>
    tallies.get(key) ?? (tallies.set(key, { r5: [], r10: [], ordered: [] }).get(key) as Tally);
  for (const [i, evalCase] of cases.entries()) {
    const split = i < 5 ? 'chats 1-5' : 'chats 6-10';
    const cutoff = cutoffInstant(evalCase, CUTOFF);
    const turns = turnsOf(evalCase.records.filter((r) => !isAfter(r.record.observedAt, cutoff)));
    const index = bm25(turns);
    for (const query of evalCase.queries.filter((q) => knowable(evalCase, q, cutoff))) {
      const ranked = (await index.search(query.text, 50)).map((h) => turns[h.turn] as Turn);
      const speakerOf = (t: Turn) => ({ ...t, speaker: t.text.slice(0, t.text.indexOf(':')) });
      score(tally(`${split}, BM25`), query, ranked);
      score(tally(`${split}, BM25 + updates first`), query, updatesFirst(ranked, query.text, speakerOf));
    }
  }
  const pct = (x: number[]) => `${((x.reduce((a, b) => a + b, 0) / Math.max(1, x.length)) * 100).toFixed(1)}%`;
  const sum = (x: number[]) => x.reduce((a, b) => a + b, 0);
  for (const [name, t] of tallies)
    process.stdout.write(
      `${name}: evidence R@5 ${pct(t.r5)}, R@10 ${pct(t.r10)} (${t.r5.length} questions); update above original @10 ${sum(t.ordered)}/${t.ordered.length}\n`,
    );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
