import type { Db, Queryable } from '../../src/db/index.ts';
import { overDriver, unscoped } from '../../src/db/unscoped.ts';
import type { Embedder } from '../../src/embeddings/embedder.ts';

/** The embedder, holding back query vectors until released (or failing them). */
export function gatedEmbedder(inner: Embedder): { embedder: Embedder; release(): void; fail(error: Error): void } {
  let open: (value: void) => void = () => undefined;
  let refuse: (error: Error) => void = () => undefined;
  const gate = new Promise<void>((resolve, reject) => {
    open = resolve;
    refuse = reject;
  });
  return {
    embedder: {
      ...inner,
      embed: async (texts, options) => {
        if (options?.kind === 'query') await gate;
        return inner.embed(texts, options);
      },
    },
    release: () => open(),
    fail: (error) => refuse(error),
  };
}

/** The store, noting each statement's text as it is sent, and calling `onVector` for one sent with a vector. */
export function loggingDb(db: Db, log: string[], onVector: () => void = () => undefined): Db {
  const inner = unscoped(db);
  const logged = (q: Queryable): Queryable => ({
    query: (text, params, options) => {
      log.push(text);
      if (params?.some((p) => typeof p === 'string' && /^\[-?\d/.test(p))) onVector();
      return q.query(text, params, options);
    },
  });
  return overDriver(db, {
    ...inner,
    ...logged(inner),
    transaction: (fn, settings) => inner.transaction((tx) => fn(logged(tx)), settings),
  });
}
