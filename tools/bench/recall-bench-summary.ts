import type { SyntheticCorpus } from './recall-bench-data.ts';
import type { QueryOutcome } from './recall-bench-query.ts';
import type { LatencyMs, RecallBenchReport, TenantMeasure } from './recall-bench-report.ts';
import { median, percentile, ratio } from './recall-bench-stats.ts';

const ms = (x: number): number => Number(x.toFixed(3));
const latency = (values: number[]): LatencyMs => ({ p50: ms(percentile(values, 50)), p95: ms(percentile(values, 95)) });

const share = (x: number): number => Number(x.toFixed(3));

function tenantMeasures(corpus: SyntheticCorpus, outcomes: QueryOutcome[]): TenantMeasure[] {
  return corpus.tenants.map((plan, t) => {
    const mine = outcomes.filter((o) => o.tenant === t);
    const recalls = mine.map((o) => o.recall);
    const forced = mine.map((o) => o.forcedRecall);
    return {
      ...plan,
      // The read recall chose for most of the tenant's queries (readVectorChannel's first read).
      plannedPath: mine.filter((o) => o.firstPath === 'exact').length * 2 >= mine.length ? 'exact' : 'hnsw',
      meanRecall: share(recalls.reduce((a, b) => a + b, 0) / recalls.length),
      medianRecall: share(median(recalls)),
      minRecall: share(Math.min(...recalls)),
      fallbacks: mine.filter((o) => o.fellBack).length,
      hnswForced: {
        medianRecall: share(median(forced)),
        minRecall: share(Math.min(...forced)),
        shortReads: mine.filter((o) => o.forcedShort).length,
        ms: latency(mine.map((o) => o.forcedMs)),
      },
      recallPathMs: latency(mine.map((o) => o.pathMs)),
      exactMs: latency(mine.map((o) => o.exactMs)),
    };
  });
}

export const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

export function summarize(
  corpus: SyntheticCorpus,
  outcomes: QueryOutcome[],
): Pick<RecallBenchReport, 'tenants' | 'latencyMs' | 'checks' | 'ratios' | 'targets'> {
  const tenants = tenantMeasures(corpus, outcomes);
  const latencyMs = {
    filtered: latency(outcomes.map((o) => o.pathMs)),
    twoStatements: latency(outcomes.map((o) => o.twoStatementsMs)),
    unfiltered: latency(outcomes.map((o) => o.unfilteredMs)),
    emptyTenant: latency(outcomes.map((o) => o.emptyMs)),
    exact: latency(outcomes.map((o) => o.exactMs)),
  };
  const checks = {
    crossTenantRows: sum(outcomes.map((o) => o.crossTenantRows)),
    ineligibleRows: sum(outcomes.map((o) => o.ineligibleRows)),
    shortResults: {
      hnswRead: outcomes.filter((o) => o.hnswShort).length,
      afterFallback: outcomes.filter((o) => o.finalShort).length,
      hnswForced: outcomes.filter((o) => o.forcedShort).length,
    },
    fallbacks: outcomes.filter((o) => o.fellBack).length,
    emptyTenantRows: sum(outcomes.map((o) => o.emptyTenantRows)),
    recallBelowHalf: {
      asPlanned: outcomes.filter((o) => o.recall < 0.5).length,
      hnswForced: outcomes.filter((o) => o.forcedRecall < 0.5).length,
    },
  };
  const largest = tenants[0] as TenantMeasure;
  const ratios = {
    filteredVsUnfilteredP95: ratio(latencyMs.filtered.p95, latencyMs.unfiltered.p95),
    twoStatementsVsUnfilteredP95: ratio(latencyMs.twoStatements.p95, latencyMs.unfiltered.p95),
    emptyTenantVsUnfilteredP95: ratio(latencyMs.emptyTenant.p95, latencyMs.unfiltered.p95),
    exactVsHnswP50: ratio(latencyMs.exact.p50, latencyMs.filtered.p50),
    exactVsHnswP50LargestTenant: ratio(largest.exactMs.p50, largest.recallPathMs.p50),
  };
  const worstTenant = Math.min(...tenants.map((t) => t.meanRecall));
  const worstForced = Math.min(...tenants.map((t) => t.hnswForced.medianRecall));
  const targets = {
    minMeanRecall: { target: 0.99, worstTenant, met: worstTenant >= 0.99 },
    recallBelowHalf: { target: 0 as const, met: checks.recallBelowHalf.asPlanned === 0 },
    minMedianRecallHnswForced: { target: 0.95, worstTenant: worstForced, met: worstForced >= 0.95 },
    crossTenantRows: { target: 0 as const, met: checks.crossTenantRows === 0 },
    shortResults: {
      target: 0 as const,
      met: checks.shortResults.hnswRead === 0 && checks.shortResults.afterFallback === 0,
    },
    filteredVsUnfilteredP95: { target: 2, met: ratios.filteredVsUnfilteredP95 <= 2 },
    emptyTenantVsUnfilteredP95: { target: 2, met: ratios.emptyTenantVsUnfilteredP95 <= 2 },
  };
  const met = Object.values(targets).every((t) => t.met);
  return { tenants, latencyMs, checks, ratios, targets: { ...targets, met } };
}
