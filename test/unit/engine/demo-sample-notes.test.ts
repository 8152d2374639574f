import { describe, expect, it } from 'vitest';
import { attributeEpisode } from '../../../policies/attribution.ts';
import { validateProposal, type ResolvedRecord } from '../../../policies/validation.ts';
import { createDeterministicEngine } from '../../../src/engine/deterministic.ts';
import { DEMO_TENANTS, demoRecords } from '../../../tools/demo/sample.ts';
import { archived, toEpisodes } from '../../helpers/episodes.ts';

describe('the demo sample through the deterministic engine and validation', () => {
  it.each(DEMO_TENANTS)(
    '%s: every proposal is accepted, or quarantined for the instruction planted in a tool result',
    async (tenant) => {
      const records = archived(demoRecords().filter((r) => r.tenantId === tenant));
      const episodes = toEpisodes(records);
      const peers = episodes.filter((e) =>
        e.records.some((r) => r.record.kind === 'task_outcome' && r.record.outcome?.status === 'success'),
      );
      const { proposals } = await createDeterministicEngine().propose({
        episodes,
        findings: episodes.flatMap((e) => attributeEpisode(e, peers)),
        activeNotes: [],
        now: new Date('2026-11-05T00:00:00Z'),
      });
      const resolved = new Map<string, ResolvedRecord>(
        records.map((r) => [r.record.id, { record: r.record, contentHash: r.ref.contentHash }]),
      );
      const verdicts = proposals.map((p) => ({ claim: p.content.claim, ...validateProposal(p, tenant, resolved) }));
      expect(verdicts.length).toBeGreaterThan(0);
      // A task's digest ("… talked: The assistant called flights.book. The run ended in failure.") included.
      expect(verdicts.filter((v) => v.verdict === 'reject')).toEqual([]);
      for (const v of verdicts.filter((x) => x.verdict === 'quarantine'))
        expect(v).toMatchObject({ rule: 'untrusted_instruction' });
    },
  );
});
