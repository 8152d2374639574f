import type { GeometryName } from '../choices.ts';
import type { TenantPlan } from './recall-bench-data.ts';

/**
 * Recall at scale: the vector channel of recall() (the recall projection's tenant partition,
 * HNSW with iterative index scans, validity and scope filters, row-level security, exact
 * fallback) against an exact scan of the same eligible rows, over many tenants of skewed sizes,
 * and its latency against a plain unfiltered ANN query over every note version.
 */
export interface RecallBenchOptions {
  /** PostgreSQL URL; the bench works in a schema of its own and drops it (unless `keep`). */
  url: string;
  /** @default 100000 */
  notes?: number;
  /** @default 20 */
  tenants?: number;
  /** Queries per tenant. @default 25 */
  queries?: number;
  /** @default 10 */
  k?: number;
  /** @default 384 */
  dimension?: number;
  /** @default 1 */
  seed?: number;
  /** Distance ratios of the synthetic vectors (see GEOMETRIES). @default 'e5' */
  geometry?: GeometryName;
  /** Keep the schema (its name goes to `onKept`) to inspect plans afterwards. @default false */
  keep?: boolean;
  onKept?: (schema: string) => void;
  onProgress?: (phase: string, done: number, total: number) => void;
}

export interface LatencyMs {
  p50: number;
  p95: number;
}

export interface TenantMeasure extends TenantPlan {
  /** The read recall took first for most of the tenant's queries: exact (a small tenant, or one sparse in its partition) or the partition's graph. */
  plannedPath: 'hnsw' | 'exact';
  /** recall@k of the recall path (the candidate read as planned, and the exact read if it came back short). */
  meanRecall: number;
  medianRecall: number;
  minRecall: number;
  /** Queries whose read returned fewer rows than asked, so recall() fell back to the exact scan. */
  fallbacks: number;
  /** The same read with the HNSW index forced (sorting disabled), whatever the planner would pick. */
  hnswForced: { medianRecall: number; minRecall: number; shortReads: number; ms: LatencyMs };
  /** The read as recall() runs it, fallback included. */
  recallPathMs: LatencyMs;
  exactMs: LatencyMs;
}

export interface PlanCheck {
  /** Whether the plan reads through an HNSW index (a projection partition's, or note_versions' for the baseline). */
  usesHnsw: boolean;
  /** EXPLAIN (ANALYZE, COSTS OFF) of one query, the query vector elided. */
  plan: string[];
}

export interface RecallBenchReport {
  setup: {
    notes: number;
    versionRows: number;
    tenants: number;
    smallestTenantShare: number;
    retiredNotes: number;
    dimension: number;
    vectors: string;
    geometry: GeometryName;
    seed: number;
    k: number;
    candidateLimit: number;
    queriesPerTenant: number;
    loadSeconds: number;
    /** Deriving the recall projection from the loaded note store, in one statement. */
    projectionSeconds: number;
    /** The whole-table note_versions index (the unfiltered baseline's). */
    indexBuildSeconds: number;
    indexDefinition: string;
    /** All projection partitions' HNSW indexes together. */
    projectionIndexBuildSeconds: number;
    projectionIndexDefinition: string;
    maintenanceWorkMem: string;
    server: string;
  };
  plans: {
    largestTenant: PlanCheck;
    smallestTenant: PlanCheck;
    emptyTenant: PlanCheck;
    /** What an empty tenant would cost if the planner chose the index: the scan runs until hnsw.max_scan_tuples. */
    emptyTenantHnswForced: PlanCheck;
    exactLargestTenant: PlanCheck;
    unfiltered: PlanCheck;
  };
  tenants: TenantMeasure[];
  latencyMs: {
    filtered: LatencyMs;
    /** The same reads in the statements recall used before the one-statement read (readInTwoStatements). */
    twoStatements: LatencyMs;
    unfiltered: LatencyMs;
    emptyTenant: LatencyMs;
    exact: LatencyMs;
  };
  checks: {
    crossTenantRows: number;
    /** Rows returned that are retired or not current (judged from the generator, not SQL). */
    ineligibleRows: number;
    /** Queries with fewer than k rows although at least k were eligible: from the read alone, and as recall() ends up. */
    shortResults: { hnswRead: number; afterFallback: number; hnswForced: number };
    fallbacks: number;
    emptyTenantRows: number;
    /** Queries whose recall@k is below 0.5: the search settled in the wrong part of the graph. */
    recallBelowHalf: { asPlanned: number; hnswForced: number };
  };
  ratios: {
    filteredVsUnfilteredP95: number;
    twoStatementsVsUnfilteredP95: number;
    emptyTenantVsUnfilteredP95: number;
    exactVsHnswP50: number;
    exactVsHnswP50LargestTenant: number;
  };
  targets: {
    minMeanRecall: { target: number; worstTenant: number; met: boolean };
    recallBelowHalf: { target: 0; met: boolean };
    minMedianRecallHnswForced: { target: number; worstTenant: number; met: boolean };
    crossTenantRows: { target: 0; met: boolean };
    shortResults: { target: 0; met: boolean };
    filteredVsUnfilteredP95: { target: number; met: boolean };
    emptyTenantVsUnfilteredP95: { target: number; met: boolean };
    met: boolean;
  };
}
