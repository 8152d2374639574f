import { loadConfig } from '../../config.ts';
import { NoteScope, SCOPE_LEVELS } from '../../contracts/note.ts';
import type { Db } from '../../db/index.ts';
import type { Embedder } from '../../embeddings/embedder.ts';
import type { RecallResult } from '../../recall/contract.ts';
import { InvalidRecallRequestError, recall } from '../../recall/recall.ts';
import { openRecallEmbedder, withDb } from '../../runtime.ts';
import { UsageError } from '../errors.ts';
import { printJson, printLine, table, warn } from '../output.ts';

const CLAIM_WIDTH = 80;

export interface RecallOpts {
  tenant: string;
  query: string;
  k: string;
  tokenBudget?: string;
  asOf?: string;
  taskId?: string;
  scope: string[];
  json?: boolean;
}

/** `nocturne recall` */
export async function recallCommand(opts: RecallOpts): Promise<void> {
  const request = {
    tenantId: opts.tenant,
    query: opts.query,
    k: parseInteger('--k', opts.k),
    ...(opts.tokenBudget !== undefined ? { tokenBudget: parseInteger('--token-budget', opts.tokenBudget) } : {}),
    ...(opts.asOf !== undefined ? { asOf: opts.asOf } : {}),
    ...(opts.taskId !== undefined ? { taskId: opts.taskId } : {}),
    ...(opts.scope.length > 0 ? { scope: opts.scope.map(parseScope) } : {}),
  };
  const config = loadConfig();
  const embedder = await openRecallEmbedder(config);
  await withDb(config, async (db) => {
    const result = await recallOrUsage(db, embedder, request);
    if (opts.json) return printJson(result);
    printResult(result);
  });
}

async function recallOrUsage(db: Db, embedder: Embedder, request: Parameters<typeof recall>[2]): Promise<RecallResult> {
  try {
    return await recall(db, embedder, request);
  } catch (error) {
    if (error instanceof InvalidRecallRequestError) throw new UsageError(error.message);
    throw error;
  }
}

function parseInteger(flag: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag}: expected a positive integer, got ${JSON.stringify(value)}`);
  return Number(value);
}

function parseScope(value: string): NoteScope {
  const colon = value.indexOf(':');
  const parsed = NoteScope.safeParse({ level: value.slice(0, colon), key: value.slice(colon + 1) });
  if (colon < 1 || !parsed.success)
    throw new UsageError(`--scope: expected ${SCOPE_LEVELS.join('|')}:key, got ${JSON.stringify(value)}`);
  return parsed.data;
}

const cut = (s: string, width: number): string => (s.length > width ? `${s.slice(0, width - 1)}…` : s);

function printResult(r: RecallResult): void {
  for (const w of r.warnings) warn(`warning: ${w}`);
  const when = r.asOf ? `as of ${r.asOf}` : `at ${r.at}`;
  printLine(`tenant ${r.tenantId}  ${when}  embedder ${r.embedder}  policy ${r.policy}`);
  if (r.notes.length === 0) return printLine('no notes recalled');
  printLine(
    table(
      ['#', 'SCORE', 'NOTE', 'VER', 'KIND', 'CONF', 'CLAIM'],
      r.notes.map((n) => [
        n.rank,
        n.score.toFixed(3),
        n.noteId,
        n.version,
        n.kind,
        n.confidence.toFixed(2),
        cut(n.claim, CLAIM_WIDTH),
      ]),
    ),
  );
  printLine('');
  for (const n of r.notes) {
    const dup = n.duplicates.length > 0 ? `; folded ${n.duplicates.length} near-duplicate(s)` : '';
    printLine(`#${n.rank} ${n.why}${dup}; evidence: ${n.evidence.map((e) => e.recordId).join(', ') || 'none'}`);
  }
  const budget = r.tokenBudget === null ? '' : ` of ${r.tokenBudget}`;
  printLine(
    `\n${r.notes.length} note(s), ${r.tokens}${budget} tokens; ${r.stats.candidates} candidates (${r.stats.vectorPath} vector path)${r.stats.usageLogged > 0 ? `; ${r.stats.usageLogged} usage row(s) logged` : ''}`,
  );
}
