import { recall } from '../../src/recall/index.ts';
import { fusedItems } from './case-run.ts';
import { fusionPolicyOf } from './fusion-weights.ts';
import { openKeptLocomo } from './kept-schema.ts';
import { cutoffInstant, isAfter } from './cutoff.ts';
import { evidenceRecall } from './metrics.ts';
import { tenantFor } from './runner.ts';
import { toolArgs } from './tool-args.ts';
import type { QueryOutcome } from './types.ts';

/**
 * Fusion weights tried on the note schema a `nocturne eval --dataset locomo --keep` run left:
 * evidence recall@1/5/10 of Nocturne's recall for each `notes/recordVector/recordText[/recordHybrid[/lessons]][@k]`
 * weight set, over the questions whose gold evidence lies before the cutoff. Question vectors are
 * embedded once. Choose weights on the tuning split's schema only.
 *
 *   node --import tsx tools/eval/fusion-offline.ts --schema nocturne_eval_locomo_… --cases 1-3 \
 *     --weights 2/1/1,2/1.5/1
 */

const USAGE = `Usage: node --import tsx tools/eval/fusion-offline.ts --schema SCHEMA [--cases 1-3] [--weights W,W…]

Evidence recall@1/5/10 of Nocturne's recall on the note schema a \`nocturne eval --dataset locomo --keep\`
run left, once per fusion weight set (notes/recordVector/recordText[/recordHybrid[/lessons]][@k]).
  --schema   the kept schema (required)
  --cases    LoCoMo conversations, e.g. 1-3 (the tuning split; default: all)
  --weights  comma-separated weight sets (default: 2/1/1)`;

async function main(): Promise<void> {
  const { values } = toolArgs(
    { schema: { type: 'string' }, cases: { type: 'string' }, weights: { type: 'string' } },
    USAGE,
  );
  const { db, embedder, cases } = await openKeptLocomo(values);
  const policies = (values.weights ?? '2/1/1').split(',').map(fusionPolicyOf);
  for (const fusion of policies) {
    const at: Record<number, number[]> = { 1: [], 5: [], 10: [] };
    for (const { evalCase } of cases) {
      const cutoff = cutoffInstant(evalCase, { share: 0.8 });
      const byRecordId = new Map(evalCase.records.map((r) => [r.record.id, r]));
      for (const query of evalCase.queries) {
        const recalled = await recall(
          db,
          embedder,
          { tenantId: tenantFor('locomo', evalCase.caseId), query: query.text, k: 10 },
          { now: () => new Date(query.askedAt), fusion },
        );
        const outcome = { items: fusedItems(recalled, byRecordId, cutoff) } as unknown as QueryOutcome;
        for (const k of [1, 5, 10]) {
          const r = evidenceRecall(query, outcome, k);
          const gold = query.goldEvidence.map((id) => evalCase.records.find((x) => x.goldId === id));
          const knowable = gold.some((g) => g && !isAfter(g.record.observedAt, cutoff));
          if (r && knowable) at[k]?.push(r.fraction);
        }
      }
    }
    const pct = (x: number[] = []) => `${((x.reduce((a, b) => a + b, 0) / Math.max(1, x.length)) * 100).toFixed(1)}%`;
    process.stdout.write(
      `${fusion.name}: R@1 ${pct(at[1])} R@5 ${pct(at[5])} R@10 ${pct(at[10])} (${at[5]?.length} questions)\n`,
    );
  }
  await db.close();
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
