import { z } from 'zod';
import { withTurnBefore } from '../../policies/record-recall.ts';
import { parseConfig } from '../../src/config.ts';
import { withTenant } from '../../src/db/index.ts';
import { createModelEmbedder } from '../../src/embeddings/create.ts';
import type { Embedder } from '../../src/embeddings/embedder.ts';
import { openNoteStore } from '../../src/runtime.ts';
import { INDEX_CHUNK } from '../../src/record-index/index.ts';
import { toolArgs, usageError } from './tool-args.ts';

/**
 * What the turn before costs the record index: a tenant's indexed records embedded by the
 * configured model as told alone and as their vectors are made (told, then the turn before
 * them), in chunks as indexing sends them, the two taking turns for a number of rounds. Each
 * round adds a word of its own to every text, so no text is answered from a cache.
 *
 *   node --import tsx tools/eval/turn-before-cost.ts --schema nocturne_eval_locomo_… --tenant locomo-conv-26
 */

const USAGE = `Usage: node --import tsx tools/eval/turn-before-cost.ts --schema SCHEMA --tenant TENANT [--rounds 3]

Seconds the configured embedding model takes for a tenant's indexed records, told alone and
with the turn said before each (as the record index embeds them), in turns.
  --schema   the note schema an \`eval --keep\` run left (required)
  --tenant   the tenant whose record index is read, e.g. locomo-conv-26 (required)
  --rounds   rounds of both (default: 3)`;

const Row = z
  .object({
    told: z.string(),
    context_record_id: z.string().nullable(),
    speaker: z.string().nullable(),
    text: z.string().nullable(),
  })
  .transform((r) => ({
    told: r.told,
    before:
      r.context_record_id === null
        ? undefined
        : { recordId: r.context_record_id, speaker: r.speaker ?? '', text: r.text ?? '' },
  }));

async function seconds(embedder: Embedder, texts: readonly string[], salt: string): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < texts.length; i += INDEX_CHUNK) {
    await embedder.embed(
      texts.slice(i, i + INDEX_CHUNK).map((t) => `${t} ${salt}`),
      { kind: 'passage' },
    );
  }
  return (performance.now() - start) / 1000;
}

async function main(): Promise<void> {
  const { values } = toolArgs(
    { schema: { type: 'string' }, tenant: { type: 'string' }, rounds: { type: 'string' } },
    USAGE,
  );
  if (!values.schema || !values.tenant) usageError('--schema and --tenant are required', USAGE);
  const rounds = Number(values.rounds ?? 3);
  if (!Number.isInteger(rounds) || rounds < 1)
    usageError(`--rounds must be a positive integer, got ${values.rounds}`, USAGE);
  const config = parseConfig(process.env);
  const db = await openNoteStore(config, { schema: values.schema });
  const embedder = createModelEmbedder(config.embedding);
  const rows = await withTenant(db, values.tenant, async (tx) =>
    (
      await tx.query(
        `SELECT r.told, r.context_record_id, c.speaker, c.text
           FROM record_index r
           LEFT JOIN record_index c ON c.tenant_id = r.tenant_id AND c.record_id = r.context_record_id
          ORDER BY r.session_id, r.observed_at, r.record_id`,
      )
    ).rows.map((r) => Row.parse(r)),
  );
  await db.close();
  if (rows.length === 0) usageError(`tenant ${values.tenant} has no indexed records in ${values.schema}`, USAGE);
  const told = rows.map((r) => r.told);
  const made = rows.map((r) => withTurnBefore(r.told, r.before));
  const chars = (texts: string[]) => texts.reduce((n, t) => n + t.length, 0);
  process.stdout.write(
    `${rows.length} records, ${rows.filter((r) => r.before).length} with the turn before; ` +
      `${chars(told)} characters told, ${chars(made)} with it\n`,
  );
  for (let round = 1; round <= rounds; round++) {
    const alone = await seconds(embedder, told, `r${round}a`);
    const withTurn = await seconds(embedder, made, `r${round}b`);
    process.stdout.write(
      `round ${round}: told ${alone.toFixed(1)} s, with the turn before ${withTurn.toFixed(1)} s (${(withTurn / alone).toFixed(2)}×)\n`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
