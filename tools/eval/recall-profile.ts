import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { DEFAULT_FUSION_POLICY } from '../../policies/fusion.ts';
import { candidateIdf, candidateMatches, lexicalMatch } from '../../policies/recall-score.ts';
import { toldText } from '../../policies/record-recall.ts';
import { contentTokens, fullTextQuery } from '../../policies/text.ts';
import type { Db, Queryable } from '../../src/db/index.ts';
import { overDriver, unscoped } from '../../src/db/unscoped.ts';
import type { Embedder } from '../../src/embeddings/embedder.ts';
import { recall } from '../../src/recall/index.ts';
import { readRecordCandidates } from '../../src/recall/read-candidates.ts';
import { parseConfig } from '../../src/config.ts';
import { createModelEmbedder } from '../../src/embeddings/create.ts';
import { openKeptLocomo } from './kept-schema.ts';
import type { EvalQuery } from './types.ts';
import { tenantFor } from './runner.ts';
import { toolArgs } from './tool-args.ts';

/**
 * Where a LoCoMo recall spends its time, on the schema a `nocturne eval --dataset locomo --keep`
 * run left: each SQL statement (by its first words) and the record ranking's JavaScript steps
 * (the record told as a note, the candidates' IDF, tokenizing and matching), in milliseconds
 * summed over the questions and at the 95th percentile. Question vectors are embedded before
 * the clock starts. With `--live`, each question is also asked as the evaluation asks it, the
 * model embedding it inside recall, beside the question's embedding alone (what the dense
 * baseline's time mostly is), with the ratio of their 50th and 95th percentiles.
 *
 * With `--answers FILE`, every answer (notes, records, ranking, scores, reasons) is written to
 * FILE, one JSON line per question, to compare two builds' answers byte for byte.
 *
 *   node --import tsx tools/eval/recall-profile.ts --schema nocturne_eval_locomo_… --cases 1 [--live] [--answers FILE]
 */

type Timings = Map<string, number[]>;

const add = (t: Timings, key: string, ms: number) => t.set(key, [...(t.get(key) ?? []), ms]);

/** A statement's label: its first words, with the record/note channel named. */
function labelOf(sql: string): string {
  const s = sql.replace(/\s+/g, ' ').trim();
  if (s.includes('FROM record_index r, q')) return 'record text (BM25)';
  if (s.includes('FROM record_index r') && s.includes('LIMIT $6::int')) return 'record vector';
  if (s.includes('record_id = ANY')) return 'record distances (full-text rows)';
  if (s.includes('note_recall') || s.includes('note_versions')) return `note: ${s.slice(0, 40)}`;
  return s.slice(0, 40);
}

/** The store, timing each statement into `timings`. */
function timedDb(db: Db, timings: Timings): Db {
  const inner = unscoped(db);
  const timed = (q: Queryable): Queryable => ({
    query: async (text, params, options) => {
      const start = performance.now();
      try {
        return await q.query(text, params, options);
      } finally {
        add(timings, `sql: ${labelOf(text)}`, performance.now() - start);
      }
    },
  });
  const driver: ReturnType<typeof unscoped> = {
    ...inner,
    ...timed(inner),
    transaction: (fn, settings) => inner.transaction((tx) => fn(timed(tx)), settings),
  };
  return overDriver(db, driver);
}

function clock<T>(t: Timings, key: string, fn: () => T): T {
  const start = performance.now();
  const out = fn();
  add(t, key, performance.now() - start);
  return out;
}

/** The record ranking's JavaScript steps, timed one by one on the candidates the channels read. */
async function profileRanking(db: Db, embedder: Embedder, t: Timings, tenantId: string, query: string, at: string) {
  const [vector] = await embedder.embed([query], { kind: 'query' });
  const params = {
    tenantId,
    at,
    scopes: undefined,
    queryVector: vector as number[],
    queryText: fullTextQuery(contentTokens(query)),
    model: embedder.name,
    limit: DEFAULT_FUSION_POLICY.depth.recordVector,
  };
  const channels = await readRecordCandidates(db, params);
  const rows = [...new Map([...channels.vector, ...channels.text].map((r) => [r.recordId, r])).values()];
  add(t, 'candidates (rows)', rows.length);
  // Each told text computed as recall did before migration 0022 (and still does for older rows).
  const told = clock(t, 'js: told text, computed', () => rows.map((r) => toldText(r)));
  const idf = clock(t, 'js: candidate IDF (separately)', () => candidateIdf(query, told));
  clock(t, 'js: word match (separately)', () => told.map((x) => lexicalMatch(query, x, idf)));
  clock(t, 'js: IDF and word match in one pass', () => candidateMatches(query, told));
  clock(t, 'js: tokenizing alone', () => told.map((x) => contentTokens(x)));
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))] ?? 0;
const p95 = (xs: number[]) => percentile(xs, 0.95);

/** Recall with the question embedded inside it, against the question's embedding alone. */
async function profileLive(db: Db, live: Embedder, t: Timings, tenantId: string, query: EvalQuery): Promise<void> {
  let start = performance.now();
  await live.embed([query.text], { kind: 'query' });
  add(t, 'embedding the question alone', performance.now() - start);
  // When the question's vector arrived inside recall: what recall spends after it is the gap to close.
  let arrived = 0;
  const timedLive: Embedder = {
    ...live,
    embed: (texts, options) =>
      live.embed(texts, options).finally(() => {
        arrived = performance.now();
      }),
  };
  start = performance.now();
  await recall(db, timedLive, { tenantId, query: query.text, k: 10 }, { now: () => new Date(query.askedAt) });
  const end = performance.now();
  add(t, 'recall, question embedded inside', end - start);
  add(t, 'recall, after the vector arrived', end - arrived);
}

function reportLive(t: Timings): void {
  const alone = t.get('embedding the question alone') ?? [];
  const inside = t.get('recall, question embedded inside') ?? [];
  for (const [name, p] of [
    ['p50', 0.5],
    ['p95', 0.95],
  ] as const) {
    const [a, b] = [percentile(alone, p), percentile(inside, p)];
    process.stdout.write(
      `live ${name}: recall ${b.toFixed(1)} ms, embedding alone ${a.toFixed(1)} ms, ratio ${(b / a).toFixed(2)}\n`,
    );
  }
}

function report(t: Timings, questions: number): void {
  const rows = [...t.entries()].sort((a, b) => b[1].reduce((s, x) => s + x, 0) - a[1].reduce((s, x) => s + x, 0));
  for (const [key, xs] of rows) {
    const sum = xs.reduce((s, x) => s + x, 0);
    process.stdout.write(
      `${key.padEnd(52)} per question ${(sum / questions).toFixed(2).padStart(8)}  p95 ${p95(xs).toFixed(2).padStart(8)}  n ${xs.length}\n`,
    );
  }
}

const USAGE = `Usage: node --import tsx tools/eval/recall-profile.ts --schema SCHEMA [--cases 1] [--live] [--answers FILE]

Where a LoCoMo recall spends its time, on the schema a \`nocturne eval --dataset locomo --keep\` run left.
  --schema   the kept schema (required)
  --cases    LoCoMo conversations, e.g. 1,3 (default: all)
  --live     also time each recall with the question embedded inside it, beside the embedding alone
  --answers  write every answer to FILE, one JSON line per question`;

async function main(): Promise<void> {
  const { values } = toolArgs(
    {
      schema: { type: 'string' },
      cases: { type: 'string' },
      live: { type: 'boolean' },
      answers: { type: 'string' },
    },
    USAGE,
  );
  const { db, embedder, cases } = await openKeptLocomo(values);
  const live = values.live ? createModelEmbedder(parseConfig(process.env).embedding) : undefined;
  const recallTimes: Timings = new Map();
  const steps: Timings = new Map();
  const liveTimes: Timings = new Map();
  let questions = 0;
  const answers: string[] = [];
  for (const { evalCase } of cases) {
    const tenantId = tenantFor('locomo', evalCase.caseId);
    for (const query of evalCase.queries) {
      await embedder.embed([query.text], { kind: 'query' });
      const options = { now: () => new Date(query.askedAt) };
      const start = performance.now();
      const answer = await recall(timedDb(db, recallTimes), embedder, { tenantId, query: query.text, k: 10 }, options);
      answers.push(JSON.stringify(answer));
      add(recallTimes, 'recall (total, vector embedded before)', performance.now() - start);
      await profileRanking(db, embedder, steps, tenantId, query.text, query.askedAt);
      if (live) await profileLive(db, live, liveTimes, tenantId, query);
      questions += 1;
    }
  }
  if (values.answers) writeFileSync(values.answers, answers.map((a) => `${a}\n`).join(''));
  process.stdout.write(`${questions} questions\n`);
  report(recallTimes, questions);
  report(steps, questions);
  if (live) {
    report(liveTimes, questions);
    reportLive(liveTimes);
  }
  await db.close();
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
