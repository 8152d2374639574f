import { describe, expect, it } from 'vitest';
import { reciprocalRankFusion, type Ranking } from '../../../policies/fusion.ts';
import {
  embeddedText,
  endsAsking,
  matchText,
  recallableText,
  speakerOf,
  TURN_BEFORE_MAX_CHARS,
  type RecallableRecord,
} from '../../../policies/record-recall.ts';

describe('recallableText', () => {
  const cases: Array<[string, RecallableRecord, string | undefined]> = [
    ['a user message', { kind: 'user_message', text: ' I moved to Berlin. ' }, 'I moved to Berlin.'],
    ['an agent message', { kind: 'agent_message', text: 'Your refund is on its way.' }, 'Your refund is on its way.'],
    ['a user correction', { kind: 'user_correction', text: 'No, the 4th.' }, 'No, the 4th.'],
    ['a tool result with text', { kind: 'tool_result', text: 'HTTP 429: rate limited' }, 'HTTP 429: rate limited'],
    ['a tool result without text', { kind: 'tool_result' }, undefined],
    ['an error', { kind: 'error', text: 'timeout after 30s' }, 'timeout after 30s'],
    ['memory_used', { kind: 'memory_used', text: 'recalled note N1' }, undefined],
    ['a tool call', { kind: 'tool_call', text: 'refunds.create' }, undefined],
    ['a task outcome', { kind: 'task_outcome', text: 'success' }, undefined],
    ['a message too short to answer anything', { kind: 'user_message', text: 'ok' }, undefined],
    ['whitespace only', { kind: 'user_message', text: '   ' }, undefined],
  ];
  it.each(cases)('%s', (_name, record, expected) => expect(recallableText(record)).toBe(expected));
});

describe('endsAsking', () => {
  it.each([
    ['a statement that ends with a question', 'I signed up for a pottery class. Have you tried it?', true],
    ['a question before a photo shown', 'How long have you been married? [shares a photo: a bride]', true],
    ['a question in the middle', 'Did you go? I went on Friday.', false],
    ['no question', 'I went on Friday.', false],
    ['nothing said', '[shares a photo: a lake]', false],
  ] as Array<[string, string, boolean]>)('%s', (_name, text, expected) => expect(endsAsking(text)).toBe(expected));
});

describe('speakerOf', () => {
  it.each([
    ['the user, for what the user said', { kind: 'user_message', userId: 'Caroline', role: 'user' }, 'Caroline'],
    ['the user, for a correction', { kind: 'user_correction', userId: 'Caroline' }, 'Caroline'],
    [
      "the role, for an agent's reply in the user's session",
      { kind: 'agent_message', userId: 'Caroline', role: 'assistant' },
      'assistant',
    ],
    ['else the role', { kind: 'agent_message', role: 'assistant' }, 'assistant'],
    ["the kind, for a tool's answer in the user's session", { kind: 'tool_result', userId: 'Caroline' }, 'tool_result'],
    ['else the kind', { kind: 'tool_result' }, 'tool_result'],
  ] as Array<[string, RecallableRecord, string]>)('%s', (_name, record, expected) =>
    expect(speakerOf(record)).toBe(expected),
  );
  it('matches the speaker with the text', () => expect(matchText('Mel', 'I paint')).toBe('Mel: I paint'));
});

describe('embeddedText', () => {
  const at = '2023-05-08T13:56:00.000Z';
  it.each([
    [
      "a user's words in the third person, the relative time made absolute",
      { kind: 'user_message', speaker: 'Caroline', text: 'I went to a support group yesterday.' },
      'Caroline: Caroline went to a support group on 7 May 2023.',
    ],
    [
      'the addressee stays "you" (a record read alone does not know who it was)',
      { kind: 'user_message', speaker: 'Melanie', text: "I'm so proud of you!" },
      'Melanie: Melanie is so proud of you!',
    ],
    [
      "a tool's words keep their person, and get the absolute time",
      { kind: 'tool_result', speaker: 'tool_result', text: 'I could not book it, try again tomorrow' },
      'tool_result: I could not book it, try again on 9 May 2023',
    ],
    [
      'a day named without its year stays as it was named (a note completes it)',
      { kind: 'user_message', speaker: 'Caroline', text: 'I missed the meeting on May 5, not yesterday.' },
      'Caroline: Caroline missed the meeting on May 5, not on 7 May 2023.',
    ],
  ] as const)('%s', (_name, record, expected) => expect(embeddedText({ ...record, observedAt: at })).toBe(expected));

  const reply = {
    kind: 'user_message',
    speaker: 'Jon',
    text: 'Yeah, awesome! Glad to be part of it.',
    observedAt: at,
  } as const;
  it.each([
    [
      'a reply takes in the turn said before it, as it was said, after its own words',
      { recordId: 'r1', speaker: 'Gina', text: 'Are they yours at the festival?' },
      'Jon: Yeah, awesome! Glad to be part of it.\n(after Gina: Are they yours at the festival?)',
    ],
    [
      'a turn before of the longest conversational length is taken in',
      { recordId: 'r1', speaker: 'Gina', text: 'x'.repeat(TURN_BEFORE_MAX_CHARS) },
      `Jon: Yeah, awesome! Glad to be part of it.\n(after Gina: ${'x'.repeat(TURN_BEFORE_MAX_CHARS)})`,
    ],
    [
      'a longer one (a page an assistant wrote) would outweigh the reply: left out',
      { recordId: 'r1', speaker: 'assistant', text: 'x'.repeat(TURN_BEFORE_MAX_CHARS + 1) },
      'Jon: Yeah, awesome! Glad to be part of it.',
    ],
    ['nothing said before it in its session', undefined, 'Jon: Yeah, awesome! Glad to be part of it.'],
  ] as const)('%s', (_name, before, expected) => expect(embeddedText(reply, before)).toBe(expected));
});

describe('reciprocalRankFusion', () => {
  const cases: Array<[string, Ranking[], number, string[]]> = [
    ['one ranking keeps its order', [{ weight: 1, ids: ['a', 'b', 'c'] }], 60, ['a', 'b', 'c']],
    [
      'an item two rankings agree on beats the top of one',
      [
        { weight: 1, ids: ['a', 'b'] },
        { weight: 1, ids: ['c', 'b'] },
      ],
      60,
      ['b', 'a', 'c'],
    ],
    [
      'a heavier channel wins a tie of ranks',
      [
        { weight: 1, ids: ['a'] },
        { weight: 2, ids: ['b'] },
      ],
      60,
      ['b', 'a'],
    ],
    [
      'a small constant trusts the head: rank 1 of one channel beats rank 3 of both',
      [
        { weight: 1, ids: ['a', 'x', 'b'] },
        { weight: 1, ids: ['c', 'y', 'b'] },
      ],
      0,
      ['a', 'c', 'b', 'x', 'y'],
    ],
    [
      'equal scores are ordered by id',
      [
        { weight: 1, ids: ['z'] },
        { weight: 1, ids: ['y'] },
      ],
      60,
      ['y', 'z'],
    ],
    ['a repeated id counts at its first rank only', [{ weight: 1, ids: ['a', 'a', 'b'] }], 60, ['a', 'b']],
  ];
  it.each(cases)('%s', (_name, rankings, k, expected) =>
    expect(reciprocalRankFusion(rankings, k).map((f) => f.id)).toEqual(expected),
  );

  it('reports each channel rank and the summed score', () => {
    const [b] = reciprocalRankFusion(
      [
        { weight: 1, ids: ['a', 'b'] },
        { weight: 2, ids: ['b'] },
      ],
      10,
    );
    expect(b).toEqual({ id: 'b', score: 1 / 12 + 2 / 11, ranks: [2, 1] });
  });

  it('refuses a negative constant', () => expect(() => reciprocalRankFusion([], -1)).toThrow(RangeError));
});
