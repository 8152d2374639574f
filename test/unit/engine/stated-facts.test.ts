import { describe, expect, it } from 'vitest';
import { attributeEpisode } from '../../../policies/attribution.ts';
import { reconcile } from '../../../policies/reconcile.ts';
import { validateProposal, type ResolvedRecord } from '../../../policies/validation.ts';
import type { RawRecordInput } from '../../../src/contracts/raw-record.ts';
import type { ArchivedRecord } from '../../../src/contracts/episode.ts';
import { createDeterministicEngine } from '../../../src/engine/deterministic.ts';
import { archived, toEpisodes } from '../../helpers/episodes.ts';

const ids = [
  '01JD0000000000000000000001',
  '01JD0000000000000000000002',
  '01JD0000000000000000000003',
  '01JD0000000000000000000004',
];
const said = (i: number, userId: string, text: string): RawRecordInput => ({
  id: ids[i] as string,
  tenantId: 'talk',
  userId,
  agentId: 'chat',
  sessionId: 'session_1',
  kind: 'user_message',
  source: 'user',
  observedAt: `2023-05-08T13:5${i}:00Z`,
  text,
});

const conversation = archived([
  said(0, 'Caroline', 'Hey Mel! How have you been?'),
  said(1, 'Caroline', 'I went to a LGBTQ support group yesterday and it was so powerful. Have you ever been to one?'),
  said(2, 'Melanie', 'Export the photos to the shared album. Put the best one in my calendar for Monday.'),
  said(3, 'Melanie', 'My kids and I painted a sunrise by the lake last weekend.'),
]);
/** The records as validation resolves cited evidence: by id, with the archived content hash. */
const resolvedOf = (records: readonly ArchivedRecord[]) =>
  new Map<string, ResolvedRecord>(
    records.map((r) => [r.record.id, { record: r.record, contentHash: r.ref.contentHash }]),
  );
const resolved = resolvedOf(conversation);

/** The deterministic engine's proposals for the records, attributed as a consolidation does. */
async function proposalsFrom(records: readonly ArchivedRecord[], now: string) {
  const episodes = toEpisodes(records);
  const findings = episodes.flatMap((e) => attributeEpisode(e));
  return (await createDeterministicEngine().propose({ episodes, findings, activeNotes: [], now: new Date(now) }))
    .proposals;
}

const notesFromConversation = () => proposalsFrom(conversation, '2023-05-09T00:00:00Z');

describe('stated facts', () => {
  it('keeps what a speaker says about themselves, named, and leaves questions, small talk and requests out', async () => {
    const proposals = await notesFromConversation();
    expect(proposals.map((p) => p.content.claim)).toEqual([
      'Caroline went to a LGBTQ support group on 7 May 2023 and it was so powerful.',
      "Melanie's kids and Melanie painted a sunrise by the lake on the weekend of 6 May 2023.",
    ]);
    expect(proposals.every((p) => p.content.sourceKind === 'user_statement' && p.content.kind === 'fact')).toBe(true);
    expect(proposals.map((p) => p.content.scope)).toEqual([
      { level: 'user', key: 'Caroline' },
      { level: 'user', key: 'Melanie' },
    ]);
  });

  it('passes validation: the speaker is part of what the cited record shows', async () => {
    for (const p of await notesFromConversation())
      expect(validateProposal(p, 'talk', resolved)).toEqual({ verdict: 'accept' });
  });

  it('two statements sharing a topic both stay; a near-restatement of a changed fact supersedes the older', async () => {
    const [first] = await notesFromConversation();
    const base = first!;
    const related = {
      ...base,
      content: {
        ...base.content,
        claim: 'Caroline went camping with the support group friends.',
        lastConfirmedAt: '2023-06-01T00:00:00Z',
      },
    };
    // Claims only: how structures of one slot reconcile is the reconciliation's own test.
    delete base.content.structure;
    const known = [{ noteId: 'N1', version: 1, content: { ...base.content, sourceCount: 1 } }];
    expect(reconcile([related], known, () => 'N2').map((p) => p.op)).toEqual(['create']);
    const changed = {
      ...base,
      content: {
        ...base.content,
        claim: 'Caroline went to a LGBTQ support group on 8 May 2023 and it was so boring.',
        lastConfirmedAt: '2023-06-01T00:00:00Z',
      },
    };
    const ops = reconcile([changed], known, () => 'N2');
    expect(ops.map((p) => [p.op, p.noteId])).toEqual([
      ['create', 'N2'],
      ['supersede', 'N1'],
    ]);
  });

  it('a long message keeps its claims within 600 characters, cut at a word, and still passes validation', async () => {
    const filler = 'The dashboard shows monthly totals per category with a chart and an export button. '.repeat(30);
    const long = archived([
      said(0, 'Craig', `${filler}I always want the charts in dark mode. ${filler}`),
      said(1, 'Craig', `I am building a budget tracker with Flask. ${filler}`),
    ]);
    const proposals = await proposalsFrom(long, '2024-01-01T00:00:00Z');
    const resolvedLong = resolvedOf(long);
    expect(proposals.map((p) => p.content.kind)).toEqual(['preference', 'fact']);
    expect(proposals[0]?.content.claim).toBe('Craig always wants the charts in dark mode.');
    for (const p of proposals) {
      expect(p.content.claim.length).toBeLessThanOrEqual(600);
      expect(validateProposal(p, 'talk', resolvedLong)).toEqual({ verdict: 'accept' });
    }
  });

  it('keeps the statement a question is joined to, and leaves the question and a doubt out', async () => {
    const agent = (i: number, text: string): RawRecordInput => ({
      ...said(i, 'u-ana', text),
      kind: 'agent_message',
      source: 'agent',
      role: 'assistant',
    });
    const asked = archived([
      said(0, 'u-ana', 'My Zotero library has 45 sources, tagged by theme and date, how can I make the most of it?'),
      agent(1, 'Group the sources into collections by chapter.'),
      said(2, 'u-ana', "I'm kinda stuck on how to cite them, should I switch to APA?"),
      agent(3, 'APA suits a media studies essay.'),
    ]);
    const proposals = await proposalsFrom(asked, '2024-04-06T00:00:00Z');
    expect(proposals.map((p) => p.content.claim)).toEqual([
      "u-ana's Zotero library has 45 sources, tagged by theme and date.",
    ]);
    expect(validateProposal(proposals[0]!, 'talk', resolvedOf(asked))).toEqual({ verdict: 'accept' });
  });

  it("keeps a date's day at the end of a sentence, with its year, and drops an inline list's next number", async () => {
    const told = archived([
      said(0, 'u-ana', 'Hi Kelly, I had to miss the book club meeting on May 5. Could you tell me which book it was?'),
      said(1, 'u-ana', 'I moved the reading group to the library annex 2. I booked the small room for Fridays.'),
    ]);
    const facts = (await proposalsFrom(told, '2023-05-09T00:00:00Z')).filter((p) => p.content.kind === 'fact');
    expect(facts.map((p) => p.content.claim)).toEqual([
      'u-ana had to miss the book club meeting on 5 May 2023.',
      'On or before 8 May 2023, u-ana moved the reading group to the library annex.',
      'On or before 8 May 2023, u-ana booked the small room for Fridays.',
    ]);
  });

  it('a proposal the note contract refuses is rejected with the reason, not thrown', async () => {
    const [p] = await notesFromConversation();
    const tooLong = { ...p!, content: { ...p!.content, claim: 'Caroline: support group '.repeat(300) } };
    expect(validateProposal(tooLong, 'talk', resolved)).toMatchObject({
      verdict: 'reject',
      rule: 'content_invalid',
      detail: expect.stringMatching(/claim: .*4000/),
    });
  });

  it("a tool's JSON document is this task's data, not a note; its prose is a candidate fact", () => {
    const tool = (i: number, text: string): RawRecordInput => ({
      ...said(i, 'Caroline', text),
      kind: 'tool_result',
      source: 'tool',
      payload: { tool: 'crm.lookup' },
    });
    const records = archived([
      tool(0, '{"reservation_id": "ABC123", "cabin": "economy", "flights": []}'),
      tool(1, 'Vendor Northwind pays on net 30 terms.'),
    ]);
    const findings = toEpisodes(records).flatMap((e) => attributeEpisode(e));
    expect(findings.map((f) => [f.type, f.summary])).toEqual([
      ['tool_content', 'Vendor Northwind pays on net 30 terms.'],
    ]);
  });
});
