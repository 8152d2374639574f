import type { ArchivedRecord, QuarantinedLine } from './reader.ts';

/** One line of an object, validated: a record, or the reason it was quarantined. */
export type Item = { kind: 'record'; value: ArchivedRecord } | { kind: 'quarantine'; value: QuarantinedLine };

/** Where the iterator reports what it hands out and what it sets aside (the reader's stats). */
export interface ItemSink {
  countRecord(): void;
  quarantine(q: QuarantinedLine): void;
}

/**
 * Serves records from the current batch synchronously (one resolved promise per record) and
 * awaits the next batch only when it runs dry. Calls to `next()` made before the previous one
 * settled are queued behind it, as an async generator would, so the order holds even for
 * callers that do not use `for await`.
 */
export class RecordIterator implements AsyncIterator<ArchivedRecord> {
  private batch: Item[] = [];
  private index = 0;
  private pending: Promise<IteratorResult<ArchivedRecord>> | undefined;

  constructor(
    private readonly batches: AsyncGenerator<Item[]>,
    private readonly reader: ItemSink,
  ) {}

  next(): Promise<IteratorResult<ArchivedRecord>> {
    if (this.pending === undefined) {
      const ready = this.take();
      if (ready !== undefined) return Promise.resolve(ready);
    }
    const p: Promise<IteratorResult<ArchivedRecord>> = this.pending
      ? this.pending.then(() => this.pull())
      : this.pull();
    this.pending = p;
    const settle = (): void => {
      if (this.pending === p) this.pending = undefined;
    };
    p.then(settle, settle);
    return p;
  }

  async return(): Promise<IteratorResult<ArchivedRecord>> {
    this.batch = [];
    this.index = 0;
    await this.batches.return(undefined); // runs the generators' finally: the stream is destroyed
    return { value: undefined, done: true };
  }

  /** The next record of the current batch (quarantining lines on the way), or undefined. */
  private take(): IteratorResult<ArchivedRecord> | undefined {
    const batch = this.batch;
    while (this.index < batch.length) {
      const item = batch[this.index] as Item;
      this.index += 1;
      if (item.kind === 'record') {
        this.reader.countRecord();
        return { value: item.value, done: false };
      }
      this.reader.quarantine(item.value);
    }
    return undefined;
  }

  private async pull(): Promise<IteratorResult<ArchivedRecord>> {
    for (;;) {
      const ready = this.take();
      if (ready !== undefined) return ready;
      const step = await this.batches.next();
      if (step.done) return { value: undefined, done: true };
      this.batch = step.value;
      this.index = 0;
    }
  }
}
