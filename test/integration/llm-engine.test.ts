import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Finding, Proposal } from '../../src/contracts/episode.ts';
import { createDeterministicEngine } from '../../src/engine/deterministic.ts';
import { createLlmEngine, type LlmEngineOptions } from '../../src/engine/llm-engine.ts';
import type { ActiveNote } from '../../src/engine/types.ts';
import { createOpenAiLlm } from '../../src/llm/openai.ts';
import { activeNotes, changes, episodes, findings as F, notes, now, rec, verdict } from '../helpers/llm-fixtures.ts';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-openai-server.ts';

/**
 * The LLM note engine through the real LlamaIndex OpenAI client against a scripted
 * OpenAI-compatible server: no module mocks. Proposals then go through the same validation the
 * replay activity runs (redaction first, as there).
 */
let server: ScriptedServer;
const engine = (options: LlmEngineOptions = {}) =>
  createLlmEngine(createOpenAiLlm({ url: server.url, model: 'scripted', maxRetries: 0 }), options);
const propose = (
  findings: Finding[],
  options: LlmEngineOptions = {},
  extra: { tokenBudget?: number; activeNotes?: ActiveNote[] } = {},
) => engine(options).propose({ episodes, findings, activeNotes: extra.activeNotes ?? activeNotes, now, ...extra });
const deterministicFor = async (f: Finding) =>
  (await createDeterministicEngine().propose({ episodes, findings: [f], activeNotes, now })).proposals;
const promptOf = (n = 0) => server.requests[n]?.body.messages?.[1]?.content ?? '';
const seatStructure = {
  subject: { type: 'user', id: 'u-dan' },
  attribute: 'prefers',
  value: 'an aisle seat',
  contrast: 'a window seat',
  exclusive: true,
  polarity: 'positive',
};

beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(async () => server.close());
beforeEach(() => {
  server.requests.length = 0;
  expect(server.pending()).toBe(0);
});

describe('LLM note engine: a good model', () => {
  it('shows numbered records and the related active notes, and turns create, revise, reinforce and retire into note changes', async () => {
    server.script({
      content: changes(
        {
          op: 'revise',
          note: 'N-seat',
          version: 2,
          finding: 1,
          structure: seatStructure,
          claim: 'u-dan prefers an aisle seat over a window seat.',
          records: [1],
        },
        {
          op: 'retire',
          note: 'N-trip',
          version: 1,
          finding: 2,
          reason: 'u-dan cancelled the Paris trip',
          records: [2],
        },
        {
          op: 'create',
          finding: 3,
          kind: 'fact',
          scope: 'user',
          structure: {
            subject: { type: 'user', id: 'Caroline' },
            attribute: 'went to',
            value: 'a LGBTQ support group',
            polarity: 'positive',
            time: { source: 'yesterday' },
          },
          claim: 'Caroline went to a LGBTQ support group yesterday.',
          records: [3],
        },
        { op: 'reinforce', note: 'N-refund', version: 1, finding: 4, records: [4, 5] },
      ),
      promptTokens: 900,
      completionTokens: 160,
    });
    const { proposals, llmTokens, refused } = await propose([F.seat, F.trip, F.group, F.refund]);
    expect(llmTokens).toBe(1060);
    expect(refused).toEqual([]);
    const prompt = promptOf();
    expect(prompt).toMatch(/\[1\] 2026-03-02T10:00:00Z user_message from user \(user "u-dan"\)/);
    expect(prompt).toMatch(/Finding 4: tool_error \(tool "refunds.create"\);.*records 4, 5\./);
    expect(prompt).toContain('Note "N-seat" version 2: preference; scope user "u-dan"');
    expect(prompt).toContain('Note "N-refund" version 1');
    expect(prompt).not.toContain('N-crm'); // unrelated to these records
    expect(prompt).not.toContain(rec.seat.record.id); // records by number, never by id

    const [revise, retire, create, reinforce] = proposals as [Proposal, Proposal, Proposal, Proposal];
    expect(revise).toMatchObject({ op: 'revise', noteId: 'N-seat', expectedVersion: 2 });
    expect(revise.content).toMatchObject({
      kind: 'preference',
      scope: { level: 'user', key: 'u-dan' },
      claim: 'u-dan prefers an aisle seat over a window seat.',
      structure: { value: 'an aisle seat', contrast: 'a window seat', polarity: 'positive' },
      evidence: [rec.seat.ref],
      sourceKind: 'user_correction',
      lastConfirmedAt: rec.seat.record.observedAt,
    });
    expect(retire).toMatchObject({ op: 'retire', noteId: 'N-trip', expectedVersion: 1 });
    expect(retire.content.contradictedAt).toBe(rec.trip.record.observedAt);
    expect(retire.reason).toMatch(/u-dan cancelled the Paris trip/);
    // The relative date is resolved against the record's observedAt (8 May 2023), not the model's arithmetic.
    expect(create).toMatchObject({ op: 'create', finding: 'stated_fact' });
    expect(create.content).toMatchObject({
      scope: { level: 'user', key: 'Caroline' },
      claim: 'Caroline went to a LGBTQ support group on 7 May 2023.',
      structure: { subject: { type: 'user', id: 'Caroline' }, time: { at: '2023-05-07T00:00:00.000Z' } },
      evidence: [rec.group.ref],
    });
    expect(reinforce).toMatchObject({ op: 'reinforce', noteId: 'N-refund', expectedVersion: 1 });
    expect(reinforce.content).toMatchObject({ sourceCount: 2, claim: notes.refund.content.claim });
    expect(reinforce.content.confidence).toBeGreaterThan(notes.refund.content.confidence);
    expect(reinforce.content.evidence).toEqual([rec.oldRefund.ref, rec.refundCall.ref, rec.refundError.ref]);

    expect(proposals.map(verdict)).toEqual(proposals.map(() => ({ verdict: 'accept' })));
  });

  it('renders a claim from the structure when the model gives none, third person and absolute', async () => {
    server.script({
      content: changes({
        op: 'create',
        finding: 1,
        kind: 'preference',
        scope: 'user',
        structure: seatStructure,
        records: [1],
      }),
    });
    const { proposals } = await propose([F.seat]);
    expect(proposals[0]?.content.claim).toBe('u-dan prefers an aisle seat over a window seat.');
    expect(verdict(proposals[0] as Proposal)).toEqual({ verdict: 'accept' });
  });

  it('proposes nothing for a finding the model judges not worth a note, and meters the call', async () => {
    server.script({ content: changes(), promptTokens: 300, completionTokens: 5 });
    expect(await propose([F.trip], {}, { activeNotes: [] })).toEqual({ proposals: [], llmTokens: 305, refused: [] });
  });
});
