/** The recall benchmark's rows in the CSV form that COPY loads into note_versions and notes. */

/** Before any plausible "now", so every note is valid when recall judges it. */
const VALID_FROM = '2025-01-01T00:00:00.000Z';
const RUN = 'bench-recall';

/**
 * note_versions' columns a benchmark loads by COPY, in CSV order: every column a writer supplies
 * but the vector (the commit benchmark's rows have none).
 */
export const NOTE_VERSION_COPY_COLUMNS = [
  'tenant_id',
  'note_id',
  'version',
  'status',
  'scope_level',
  'scope_key',
  'kind',
  'claim',
  'evidence',
  'source_kind',
  'confidence',
  'importance',
  'valid_from',
  'valid_until',
  'superseded_by',
  'source_count',
  'last_confirmed_at',
  'contradicted_at',
  'created_by_run',
] as const;

/** Columns of the note_versions COPY, in the order versionLines writes them. */
export const VERSION_COPY_COLUMNS = [...NOTE_VERSION_COPY_COLUMNS, 'embedding'] as const;

/** Columns of the notes (current pointer) COPY, in the order pointerLines writes them. */
export const POINTER_COPY_COLUMNS = ['tenant_id', 'note_id', 'current_version', 'status'] as const;

const csvQuote = (text: string): string => `"${text.replaceAll('"', '""')}"`;

/**
 * pgvector's text form with five decimals, written as integers with an exponent ("12345e-5"):
 * formatting 40M numbers with toFixed would take longer than loading them.
 */
export function vectorText(vector: readonly number[]): string {
  return `[${vector.map((x) => `${Math.round(x * 1e5)}e-5`).join(',')}]`;
}

/** One note version of the synthetic corpus: tenant and note by index and by id. */
interface VersionRow {
  tenant: number;
  tenantId: string;
  note: number;
  noteId: string;
  version: number;
  status: 'active' | 'retired';
  claim: string;
  /** The vector in pgvector's text form. */
  embedding: string;
}

/** One CSV line of note_versions, in VERSION_COPY_COLUMNS order. */
export function versionCsvLine(row: VersionRow): string {
  const evidence = JSON.stringify([
    {
      recordId: syntheticUlid(row.tenant * 1_000_000 + row.note),
      objectKey: `raw/tenant=${row.tenantId}/date=2025-01-01/bench.jsonl.gz`,
      line: row.note + 1,
      contentHash: '0'.repeat(64),
    },
  ]);
  const values = [
    row.tenantId,
    row.noteId,
    row.version,
    row.status,
    'user',
    `user-${row.note % 97}`,
    'fact',
    csvQuote(row.claim),
    csvQuote(evidence),
    'tool_fact',
    0.8,
    0.5,
    VALID_FROM,
    '',
    '',
    1,
    VALID_FROM,
    '',
    RUN,
    csvQuote(row.embedding),
  ];
  return `${values.join(',')}\n`;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A valid ULID string derived from a number: evidence refs need one, and these are never resolved. */
export function syntheticUlid(n: number): string {
  let out = '';
  for (let rest = n; out.length < 16; rest = Math.floor(rest / 32)) out = CROCKFORD[rest % 32] + out;
  return `01J0000000${out}`;
}
