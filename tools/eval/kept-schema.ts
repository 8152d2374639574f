import { parseConfig } from '../../src/config.ts';
import type { Db } from '../../src/db/index.ts';
import { createModelEmbedder } from '../../src/embeddings/create.ts';
import type { Embedder } from '../../src/embeddings/embedder.ts';
import { openNoteStore } from '../../src/runtime.ts';
import { parseCaseSelection, selectCases } from './case-selection.ts';
import { defaultDatasetPath, loadDataset } from './datasets/index.ts';

/** The embedder, asking the model once per distinct request: offline tools ask the same questions over and over. */
export function memoized(inner: Embedder): Embedder {
  const seen = new Map<string, Promise<number[][]>>();
  return {
    ...inner,
    embed: (texts, options) => {
      const key = `${options?.kind ?? ''}\u0000${texts.join('\u0001')}`;
      const hit = seen.get(key) ?? inner.embed(texts, options);
      seen.set(key, hit);
      return hit;
    },
  };
}

/**
 * What the offline LoCoMo tools read: the schema an `eval --keep` run left, the configured model
 * (each question embedded once) and the selected conversations.
 */
export async function openKeptLocomo(values: { schema?: string | undefined; cases?: string | undefined }): Promise<{
  db: Db;
  embedder: Embedder;
  cases: Awaited<ReturnType<typeof selectCases>>;
}> {
  if (!values.schema) throw new Error('--schema is required (the schema an `eval --keep` run left)');
  const config = parseConfig(process.env);
  const db = await openNoteStore(config, { schema: values.schema });
  const embedder = memoized(createModelEmbedder(config.embedding));
  const all = await loadDataset('locomo', defaultDatasetPath('locomo'));
  return { db, embedder, cases: selectCases(all, values.cases ? parseCaseSelection(values.cases) : undefined) };
}
