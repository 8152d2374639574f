import { loadConfig } from '../../config.ts';
import { NoteScope, SCOPE_LEVELS } from '../../contracts/note.ts';
import type { Db } from '../../db/index.ts';
import type { Embedder } from '../../embeddings/embedder.ts';
import { RECALL_SOURCES, type RecallResult } from '../../recall/contract.ts';
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
  minRelevance?: string;
  askedBy?: string;
  asOf?: string;
  taskId?: string;
  scope: string[];
  include: string[];
  json?: boolean;
}

/** `nocturne recall` */
export async function recallCommand(opts: RecallOpts): Promise<void> {
  const request = {
    tenantId: opts.tenant,
    query: opts.query,
    k: parseInteger('--k', opts.k),
    ...(opts.tokenBudget !== undefined ? { tokenBudget: parseInteger('--token-budget', opts.tokenBudget) } : {}),
    ...(opts.minRelevance !== undefined ? { minRelevance: parseShare('--min-relevance', opts.minRelevance) } : {}),
    ...(opts.askedBy !== undefined ? { askedBy: opts.askedBy } : {}),
    ...(opts.asOf !== undefined ? { asOf: opts.asOf } : {}),
    ...(opts.taskId !== undefined ? { taskId: opts.taskId } : {}),
    ...(opts.scope.length > 0 ? { scope: opts.scope.map(parseScope) } : {}),
    ...(opts.include.length > 0 ? { include: opts.include.map(parseSource) } : {}),
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

function parseShare(flag: string, value: string): number {
  const share = Number(value);
  if (value.trim() === '' || !(share >= 0 && share <= 1))
    throw new UsageError(`${flag}: expected a number from 0 to 1, got ${JSON.stringify(value)}`);
  return share;
}

function parseScope(value: string): NoteScope {
  const colon = value.indexOf(':');
  const parsed = NoteScope.safeParse({ level: value.slice(0, colon), key: value.slice(colon + 1) });
  if (colon < 1 || !parsed.success)
    throw new UsageError(`--scope: expected ${SCOPE_LEVELS.join('|')}:key, got ${JSON.stringify(value)}`);
  return parsed.data;
}

function parseSource(value: string): (typeof RECALL_SOURCES)[number] {
  const source = RECALL_SOURCES.find((s) => s === value);
  if (!source) throw new UsageError(`--include: expected ${RECALL_SOURCES.join('|')}, got ${JSON.stringify(value)}`);
  return source;
}

const cut = (s: string, width: number): string => (s.length > width ? `${s.slice(0, width - 1)}…` : s);

function printResult(r: RecallResult): void {
  for (const w of r.warnings) warn(`warning: ${w}`);
  const when = r.asOf ? `as of ${r.asOf}` : `at ${r.at}`;
  printLine(`tenant ${r.tenantId}  ${when}  embedder ${r.embedder}  policy ${r.policy}  fusion ${r.fusion ?? '-'}`);
  if (r.matchedAs !== undefined && r.matchedAs !== r.query) printLine(`matched as: ${r.matchedAs}`);
  printPreferences(r);
  if (r.ranking.length === 0) {
    const below = r.stats.belowMinRelevance;
    return printLine(
      `nothing recalled${below > 0 ? ` (${below} item(s) matched the query less than --min-relevance)` : ''}`,
    );
  }
  printNotes(r);
  printRecords(r);
  const budget = r.tokenBudget === null ? '' : ` of ${r.tokenBudget}`;
  const order = r.ranking.map((i) => (i.type === 'note' ? noteRank(r, i.id) : recordRank(r, i.id))).join(' ');
  printLine(`\nread in this order: ${order}`);
  printLine(
    `${r.notes.length} note(s), ${r.records.length} record(s), ${r.tokens}${budget} tokens; ${r.stats.candidates} note candidates (${r.stats.vectorPath} vector path), ${r.stats.recordVectorCandidates + r.stats.recordTextCandidates + r.stats.recordsAtNamedTimes} record candidates${r.stats.usageLogged > 0 ? `; ${r.stats.usageLogged} usage row(s) logged` : ''}`,
  );
}

const noteRank = (r: RecallResult, id: string) => `N${r.notes.find((n) => n.noteId === id)?.rank ?? '?'}`;
const recordRank = (r: RecallResult, id: string) => `R${r.records.find((x) => x.recordId === id)?.rank ?? '?'}`;

function printNotes(r: RecallResult): void {
  if (r.notes.length === 0) return;
  printLine(
    table(
      ['#', 'SCORE', 'NOTE', 'VER', 'KIND', 'CONF', 'CLAIM'],
      r.notes.map((n) => [
        `N${n.rank}`,
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
    const contradicted = n.contradictedAt ? `; contradicted at ${n.contradictedAt}` : '';
    const tool = n.toolDerived ? '; reported by a tool, unconfirmed' : '';
    printLine(
      `N${n.rank} ${n.why}${dup}${contradicted}${tool}; evidence: ${n.evidence.map((e) => e.recordId).join(', ') || 'none'}`,
    );
    for (const c of n.conflicts)
      printLine(`   suppressed conflict ${c.noteId} v${c.version}: ${cut(c.claim, CLAIM_WIDTH)}`);
  }
}

/** The user's standing preferences come first: they hold whatever the query is about. */
function printPreferences(r: RecallResult): void {
  if (r.preferences.length === 0) return;
  printLine('standing preferences:');
  for (const n of r.preferences)
    printLine(`  P${n.rank} ${n.noteId} v${n.version} (${n.confidence.toFixed(2)}) ${cut(n.claim, CLAIM_WIDTH)}`);
  printLine('');
}

function printRecords(r: RecallResult): void {
  if (r.records.length === 0) return;
  printLine('');
  printLine(
    table(
      ['#', 'SCORE', 'MATCH', 'RECORD', 'OBSERVED', 'SPEAKER', 'KIND', 'TEXT'],
      r.records.map((x) => [
        `R${x.rank}`,
        x.score.toFixed(4),
        x.relevance.toFixed(2),
        x.recordId,
        x.observedAt,
        x.speaker,
        x.kind,
        cut(x.text, CLAIM_WIDTH),
      ]),
    ),
  );
  for (const x of r.records) printLine(`R${x.rank} ${x.why}`);
}
