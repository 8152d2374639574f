import { DEFAULT_FUSION_POLICY, type FusionPolicy } from '../../policies/fusion.ts';
import { updatesFirst } from '../../policies/recall-updates.ts';
import { parseConfig } from '../../src/config.ts';
import type { Db } from '../../src/db/index.ts';
import { createModelEmbedder } from '../../src/embeddings/create.ts';
import type { Embedder } from '../../src/embeddings/embedder.ts';
import { recall } from '../../src/recall/index.ts';
import { openNoteStore } from '../../src/runtime.ts';
import { bm25 } from './baselines/bm25.ts';
import { turnsOf, type Turn } from './baselines/turns.ts';
import { fusedItems } from './case-run.ts';
import { fusionPolicyOf } from './fusion-weights.ts';
import { memoized } from './kept-schema.ts';
import { cutoffInstant, isAfter } from './cutoff.ts';
import { toolArgs } from './tool-args.ts';
import { defaultDatasetPath, loadDataset } from './datasets/index.ts';
import { evidenceRecall, updateOrder } from './metrics.ts';
import { queryKey, updatesAfter } from './questions.ts';
import { tenantFor } from './runner.ts';
import type { EvalCase, EvalQuery, QueryOutcome, RetrievedItem } from './types.ts';

/**
 * The knowledge-update rule (policies/recall-updates.ts) on BEAM, for each chat split (1–5,
 * 6–10): evidence recall@1/@5/@10 and how often the update ranks above the original in the top 10,
 * with and without the rule. Without the stack, on BM25's ranking of the raw turns. With
 * `--schema`, also on Nocturne's own ranking: recall over the note schema a
 * `nocturne eval --dataset beam --keep` run left (its tenants, the same question times), once
 * with the default fusion and once without `updatesFirst` (the embedding server is asked for the
 * questions' vectors); `--weights` adds fusion policies in `tools/eval/fusion-offline.ts`'s syntax.
 *
 *   node --import tsx tools/eval/updates-offline.ts [--path P] [--schema nocturne_eval_beam_…] [--weights 1/1/0/1.1]
 */

interface Tally {
  r1: number[];
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

const turnItems = (ranked: readonly Turn[]): RetrievedItem[] =>
  ranked.map((t) => ({ goldIds: [t.goldId], goldSessions: [], score: 0, tokens: 0, afterCutoff: false }));

function score(tally: Tally, query: EvalQuery, ranked: readonly RetrievedItem[], updateKnown: boolean): void {
  const outcome = { items: ranked.slice(0, 10) } as unknown as QueryOutcome;
  const r1 = evidenceRecall(query, outcome, 1);
  const r5 = evidenceRecall(query, outcome, 5);
  const r10 = evidenceRecall(query, outcome, 10);
  const order = updateOrder(query, outcome, 10);
  if (r1) tally.r1.push(r1.fraction);
  if (r5) tally.r5.push(r5.fraction);
  if (r10) tally.r10.push(r10.fraction);
  if (updateKnown && order?.ordered !== undefined) tally.ordered.push(order.ordered);
}

/** Nocturne's recall of a kept evaluation schema, with the fusion's update rule off and on. */
interface Kept {
  db: Db;
  embedder: Embedder;
}

/** Nocturne's ranking of the question under each fusion policy, by the policy's name. */
async function nocturneRanked(
  kept: Kept,
  evalCase: EvalCase,
  query: EvalQuery,
  cutoff: string | undefined,
  policies: readonly FusionPolicy[],
): Promise<Array<[string, RetrievedItem[]]>> {
  const byRecordId = new Map(evalCase.records.map((r) => [r.record.id, r]));
  const ranked: Array<[string, RetrievedItem[]]> = [];
  for (const fusion of policies) {
    const recalled = await recall(
      kept.db,
      kept.embedder,
      { tenantId: tenantFor('beam', evalCase.caseId), query: query.text, k: 10, askedBy: query.askedBy },
      { now: () => new Date(query.askedAt), fusion },
    );
    ranked.push([fusion.name, fusedItems(recalled, byRecordId, cutoff)]);
  }
  return ranked;
}

async function openKept(schema: string): Promise<Kept> {
  const config = parseConfig(process.env);
  return { db: await openNoteStore(config, { schema }), embedder: memoized(createModelEmbedder(config.embedding)) };
}

const USAGE = `Usage: node --import tsx tools/eval/updates-offline.ts [--path P] [--schema SCHEMA] [--weights W,W…]

BEAM's knowledge updates per chat split (1–5, 6–10), with and without the update rule: on BM25's
ranking of the raw turns, and with --schema on Nocturne's recall over a kept \`nocturne eval --dataset beam --keep\` schema.
  --path     the BEAM dataset (default: the shared datasets folder)
  --schema   the kept schema (needs the stack's embedding server)
  --weights  extra fusion policies, in fusion-offline.ts's syntax`;

async function main(): Promise<void> {
  const { values } = toolArgs(
    { path: { type: 'string' }, schema: { type: 'string' }, weights: { type: 'string' } },
    USAGE,
  );
  const policies = [
    DEFAULT_FUSION_POLICY,
    { ...DEFAULT_FUSION_POLICY, name: `${DEFAULT_FUSION_POLICY.name} without the update rule`, updatesFirst: false },
    ...(values.weights ? values.weights.split(',').map(fusionPolicyOf) : []),
  ];
  const cases = await loadDataset('beam', values.path ?? defaultDatasetPath('beam'));
  const kept = values.schema ? await openKept(values.schema) : undefined;
  const tallies = new Map<string, Tally>();
  const tally = (key: string) =>
    tallies.get(key) ?? (tallies.set(key, { r1: [], r5: [], r10: [], ordered: [] }).get(key) as Tally);
  for (const [i, evalCase] of cases.entries()) {
    const split = i < 5 ? 'chats 1-5' : 'chats 6-10';
    const cutoff = cutoffInstant(evalCase, CUTOFF);
    const turns = turnsOf(evalCase.records.filter((r) => !isAfter(r.record.observedAt, cutoff)));
    const index = bm25(turns);
    const updatesLater = updatesAfter([evalCase], () => cutoff);
    for (const query of evalCase.queries.filter((q) => knowable(evalCase, q, cutoff))) {
      const updateKnown = !updatesLater.has(queryKey(evalCase.dataset, evalCase.caseId, query.queryId));
      const ranked = (await index.search(query.text, 50)).map((h) => turns[h.turn] as Turn);
      const speakerOf = (t: Turn) => ({ ...t, speaker: t.text.slice(0, t.text.indexOf(':')) });
      score(tally(`${split}, BM25`), query, turnItems(ranked), updateKnown);
      const first = turnItems(updatesFirst(ranked, query.text, speakerOf));
      score(tally(`${split}, BM25 + updates first`), query, first, updateKnown);
      if (!kept) continue;
      const nocturne = await nocturneRanked(kept, evalCase, query, cutoff, policies);
      // A chat the kept run did not hold answers nothing: it is not scored.
      if (nocturne[0]?.[1].length === 0) continue;
      for (const [name, items] of nocturne) score(tally(`${split}, Nocturne ${name}`), query, items, updateKnown);
    }
  }
  await kept?.db.close();
  const pct = (x: number[]) => `${((x.reduce((a, b) => a + b, 0) / Math.max(1, x.length)) * 100).toFixed(1)}%`;
  const sum = (x: number[]) => x.reduce((a, b) => a + b, 0);
  for (const [name, t] of tallies)
    process.stdout.write(
      `${name}: evidence R@1 ${pct(t.r1)}, R@5 ${pct(t.r5)}, R@10 ${pct(t.r10)} (${t.r5.length} questions); update above original @10 ${sum(t.ordered)}/${t.ordered.length}\n`,
    );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
