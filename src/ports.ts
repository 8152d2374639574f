import type { ArchiveObjectCache, ArchiveStore } from './archive/index.ts';
import type { FailureType } from './contracts/failure-types.ts';
import type { Db } from './db/index.ts';
import type { Embedder } from './embeddings/embedder.ts';
import type { NoteEngine } from './engine/types.ts';
import type { PhaseTimes } from './consolidation/phase-times.ts';

/**
 * The ports every use case runs over. `src/worker.ts` builds them for the activities; tests
 * pass their own (PGlite, a file archive, the deterministic engine, the hashing embedder).
 */
export interface Ports {
  archive: ArchiveStore;
  /** The worker's inflated archive objects, shared by its replay batches; absent, each read inflates. */
  archiveCache?: ArchiveObjectCache;
  db: Db;
  embedder: Embedder;
  engine: NoteEngine;
  /** New note ids (ULIDs in production; deterministic in tests). */
  newId: () => string;
  clock?: () => Date;
  /** Where replay adds the time of each of its phases (a benchmark reads it); absent, nothing is timed. */
  replayPhases?: PhaseTimes;
}

/**
 * How a long use case says it is still working. An activity passes its heartbeats, so a
 * retry does not start while the first attempt is alive; a direct caller passes nothing.
 */
export interface Progress {
  /** Reports progress once. */
  beat(details?: unknown): void;
  /** Keeps reporting while one long call (an embedding request, a model writing notes) is pending. */
  during<T>(work: Promise<T>, details?: unknown): Promise<T>;
}

/** Progress for callers outside an activity: nothing to report to. */
export const SILENT: Progress = { beat: () => {}, during: (work) => work };

/** The time a use case stamps on what it writes. */
export const nowOf = (ports: Pick<Ports, 'clock'>): Date => (ports.clock ?? (() => new Date()))();

/**
 * A fault that a retry will not fix (a missing run, a note that was erased, a rebuild that was
 * superseded). `type` is the stable name callers and workflows match on (src/contracts/failure-types.ts);
 * the activity layer turns it into a non-retryable failure of that type.
 */
export class PermanentFailure extends Error {
  override name = 'PermanentFailure';
  constructor(
    message: string,
    readonly type: FailureType,
  ) {
    super(message);
  }
}
