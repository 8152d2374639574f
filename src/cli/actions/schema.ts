import { loadConfig } from '../../config.ts';
import {
  type Db,
  downSectionDataLoss,
  migrationState,
  openStoreAsOwner,
  revertMigrations,
  type MigrationState,
} from '../../db/index.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine } from '../output.ts';

export interface SchemaStatusOptions {
  json?: boolean;
}

export interface SchemaRevertOptions {
  count: string;
  yes?: boolean;
  json?: boolean;
}

async function withOwnerStore<T>(fn: (db: Db) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const db = await openStoreAsOwner(config.database);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** `nocturne schema status` */
export async function schemaStatusCommand(opts: SchemaStatusOptions): Promise<void> {
  const state = await withOwnerStore((db) => migrationState(db));
  if (opts.json) return printJson(state);
  printStatus(state);
}

function printStatus(s: MigrationState): void {
  const span = (names: string[]) =>
    names.length === 0 ? 'none' : names.length === 1 ? names[0] : `${names.length}, ${names[0]} to ${names.at(-1)}`;
  printLine(`applied: ${span(s.applied)}`);
  printLine(`pending: ${span(s.pending)}`);
  const keep = s.applied.at(-1 - s.revertible);
  if (s.applied.length === 0) return printLine('revertible: none (nothing applied)');
  printLine(
    s.revertible === 0
      ? `revertible: none (${s.applied.at(-1)} has no down section)`
      : `revertible: the newest ${s.revertible}, back to ${keep ?? 'an empty store'} (nocturne schema revert --count <n>)`,
  );
}

/** `nocturne schema revert --count <n> [--yes]`: without --yes, what it would revert and drop, and nothing changed. */
export async function schemaRevertCommand(opts: SchemaRevertOptions): Promise<void> {
  const count = Number(opts.count);
  if (!Number.isInteger(count) || count < 1) throw new UsageError(`--count: a positive integer, got ${opts.count}`);
  const config = loadConfig();
  const result = await withOwnerStore(async (db) => {
    const before = await migrationState(db);
    if (count > before.revertible)
      throw new UsageError(
        `--count ${count}: only the newest ${before.revertible} applied migrations can be reverted (${before.applied.at(-1 - before.revertible) ?? 'the first'} has no down section); nothing reverted`,
      );
    const chosen = before.applied.slice(-count).reverse();
    const dataLoss = chosen.flatMap((name) => downSectionDataLoss(name).map((statement) => ({ name, statement })));
    if (!opts.yes) return { reverted: [], wouldRevert: chosen, dataLoss, state: before };
    const reverted = await revertMigrations(db, { dimension: config.embedding.dimension, count });
    return { reverted, wouldRevert: [], dataLoss, state: await migrationState(db) };
  });
  if (opts.json) return printJson({ ...result, ...result.state, state: undefined });
  if (!opts.yes) {
    printLine(`would revert ${result.wouldRevert.length}: ${result.wouldRevert.join(', ')}`);
    for (const d of result.dataLoss) printLine(`  loses data: ${d.statement} (${d.name})`);
    printLine('nothing reverted: run again with --yes to revert (stop the workers and servers of this release first)');
    return;
  }
  for (const name of result.reverted) printLine(`reverted ${name}`);
  printStatus(result.state);
}
