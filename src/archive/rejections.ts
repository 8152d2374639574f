/** Why a line of an upload was rejected. Stable names: they are counted and reported. */
export const REJECTION_CODES = [
  'invalid_utf8',
  'invalid_json',
  'oversize_line',
  'schema',
  'tenant_mismatch',
  'duplicate_id',
  'unserializable',
  'oversize_record',
] as const;
export type RejectionCode = (typeof REJECTION_CODES)[number];

export interface Rejection {
  line: number;
  code: RejectionCode;
  reason: string;
  /** The input file, when an upload spans several. */
  file?: string;
}

export interface RejectionSummary {
  /** Every rejected line, counted. */
  total: number;
  byCode: Partial<Record<RejectionCode, number>>;
  /** The first `limit` rejections in input order (file, then line), with their reasons. */
  details: Rejection[];
  /** More rejections were counted than are listed in `details`. */
  truncated: boolean;
}

/** Rejection details kept by default; counts stay exact beyond it. */
export const DEFAULT_REJECTION_DETAILS = 100;

/**
 * Counts every rejection but keeps the details of only the first `limit` in input order, so a
 * file of a million bad lines costs a few counters, not a million messages. Rejections arrive
 * roughly in order (the writer reports a batch after the parser has moved on), so the kept
 * list is trimmed in bulk: at most twice `limit` entries are ever held.
 */
export class RejectionLog {
  private total = 0;
  private readonly byCode: Partial<Record<RejectionCode, number>> = {};
  private kept: Array<Rejection & { order: number }> = [];
  /** Once `limit` details are kept, a rejection later in the input than all of them is only counted. */
  private threshold: number;

  constructor(private readonly limit = DEFAULT_REJECTION_DETAILS) {
    this.threshold = limit > 0 ? Infinity : -Infinity;
  }

  /** `fileIndex` orders rejections of several files: the first file's come first. */
  add(rejection: Rejection, fileIndex = 0): void {
    this.total += 1;
    this.byCode[rejection.code] = (this.byCode[rejection.code] ?? 0) + 1;
    const order = fileIndex * 2 ** 32 + rejection.line;
    if (order >= this.threshold) return;
    this.kept.push({ ...rejection, order });
    if (this.kept.length >= 2 * this.limit) this.trim();
  }

  summary(): RejectionSummary {
    this.trim();
    const details = this.kept.map(({ order: _, ...r }) => r);
    return { total: this.total, byCode: { ...this.byCode }, details, truncated: this.total > details.length };
  }

  private trim(): void {
    this.kept.sort((a, b) => a.order - b.order);
    this.kept.length = Math.min(this.kept.length, this.limit);
    const last = this.kept[this.limit - 1];
    if (last) this.threshold = last.order;
  }
}
