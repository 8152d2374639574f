import { describe, expect, it } from 'vitest';
import { UPDATE_OUTRIGHT_REACH, UPDATE_REACH, updatesFirst, type UpdateView } from '../../policies/recall-updates.ts';

interface Item extends UpdateView {
  id: string;
}

const item = (id: string, observedAt: string, text: string, speaker = 'u-ana'): Item => ({
  id,
  observedAt,
  text,
  speaker,
});
const ids = (items: readonly Item[]) => items.map((i) => i.id);
const order = (ranked: Item[], query: string) => ids(updatesFirst(ranked, query, (i) => i));

const MARCH = '2024-03-10T09:00:00.000Z';
const APRIL = '2024-04-10T09:00:00.000Z';
const MAY = '2024-05-10T09:00:00.000Z';

const zoteroQuery = 'How many sources are in my Zotero library?';
const original = item('march', MARCH, 'My Zotero library has 45 sources, tagged by theme and date.');
const update = item('may', MAY, 'My Zotero library now has 52 sources, all tagged by theme.');
const unrelated = item('essay', APRIL, 'The essay outline has five sections and a conclusion.');

/** BEAM chat 7's first statement: it shares the subject's words with the update but little else. */
const saidInPassing = item(
  'march',
  MARCH,
  "I'm kinda struggling to keep my sources organized, now that my Zotero library has 45 sources, tagged by theme and date, which has improved retrieval speed by 40%.",
);

describe('updatesFirst: a newer value of what the query asks about is read first', () => {
  it('moves the newer statement of the count to just above the older one', () => {
    expect(order([original, unrelated, update], zoteroQuery)).toEqual(['may', 'march', 'essay']);
  });

  it('moves nothing else: what stood between them keeps its order one place down', () => {
    const other = item('outline', APRIL, 'The outline of the essay has three parts.');
    expect(order([unrelated, original, other, update], zoteroQuery)).toEqual(['essay', 'may', 'march', 'outline']);
  });

  it('does not take what someone else said for an update of the speaker’s own value', () => {
    const assistant = item('reply', MAY, 'Your Zotero library with 52 sources can be organized by tags.', 'assistant');
    expect(order([original, assistant], zoteroQuery)).toEqual(['march', 'reply']);
  });

  it("does not count the asker's own name as a word of the subject (a question told as u-ana)", () => {
    const older = item('march', MARCH, "u-ana's Zotero library has 45 sources.");
    const newer = item('may', MAY, 'u-ana booked 2 flights to Lisbon for the Zotero workshop.');
    expect(order([older, newer], "How many sources are in u-ana's Zotero library?")).toEqual(['march', 'may']);
  });

  it('keeps the order when the better-ranked statement is already the newer one', () => {
    expect(order([update, original, unrelated], zoteroQuery)).toEqual(['may', 'march', 'essay']);
  });

  it('does not move an item that mentions the subject without another value', () => {
    const noValue = item(
      'june',
      '2024-06-01T09:00:00.000Z',
      'I really like how my Zotero library keeps sources tagged.',
    );
    expect(order([original, noValue], zoteroQuery)).toEqual(['march', 'june']);
  });

  it('does not take a worked example full of other figures for an update of one value', () => {
    const example = item(
      'worked',
      MAY,
      'My Zotero library sources: 12 from 2019, 18 from 2021, 9 from 2023 and 13 from 2024, tagged by theme.',
    );
    expect(order([original, unrelated, example], zoteroQuery)).toEqual(['march', 'essay', 'worked']);
  });

  it('does not move an item with the same value: a restatement is not an update', () => {
    const same = item('june', '2024-06-01T09:00:00.000Z', 'My Zotero library still has 45 sources tagged by theme.');
    expect(order([original, same], zoteroQuery)).toEqual(['march', 'june']);
  });

  it('reads 4,500 and 4500 as one value', () => {
    const a = item('a', MARCH, 'The essay draft has 4,500 words.');
    const b = item('b', MAY, 'My essay draft has 4500 words now.');
    expect(order([a, b], 'How many words does my essay draft have?')).toEqual(['a', 'b']);
  });

  it('does not move a newer number about something else the query also names', () => {
    const other = item('pages', MAY, 'I printed 52 pages from my library card account.');
    expect(order([original, other], zoteroQuery)).toEqual(['march', 'pages']);
  });

  it('swaps the oldest of three versions with the newest: the current value is read first', () => {
    const april = item('april', APRIL, 'My Zotero library has 48 sources, tagged by theme.');
    expect(order([original, april, update], zoteroQuery)[0]).toBe('may');
  });

  it('moves a newer time of day above the older one (a rescheduled meeting)', () => {
    const at3 = item(
      '3pm',
      MARCH,
      'I have a Zoom meeting with Professor Danielle on March 22 at 3 PM to review my draft.',
    );
    const at430 = item(
      '430pm',
      '2024-03-11T09:00:00.000Z',
      'Can you remind me that the Zoom meeting with Professor Danielle is rescheduled to March 22 at 4:30 PM?',
    );
    expect(order([at3, at430], 'What time should I join the Zoom meeting with Professor Danielle?')).toEqual([
      '430pm',
      '3pm',
    ]);
  });

  it('takes a newer statement that says the value changed for an update, in whatever other words', () => {
    const added = item('may', MAY, "I've added 52 sources to my Zotero library, how can I organize them for my essay?");
    expect(order([saidInPassing, unrelated, added], zoteroQuery)).toEqual(['may', 'march', 'essay']);
  });

  it('does not take the same words without a change said for an update', () => {
    const mentioned = item(
      'may',
      MAY,
      'I cite 52 sources from my Zotero library in the essay, how should I format them?',
    );
    expect(order([saidInPassing, mentioned], zoteroQuery)).toEqual(['march', 'may']);
  });

  it('takes a said change for an update even when the older message holds many other figures', () => {
    // BEAM chat 5: the first statement is a long message of hours, scores and goals.
    const first = item(
      'jan',
      MARCH,
      "I've already spent 3 hours studying probability basics, 2 of them on dice roll problems, aiming for 10 problems at 80% accuracy by February 1, with 4/5 correct so far.",
    );
    const extended = item('feb', MAY, "I've extended my study sessions on probability dice roll problems to 4 hours.");
    expect(order([first, extended], 'How many hours have I spent studying probability dice roll problems?')).toEqual([
      'feb',
      'jan',
    ]);
  });

  it('does not take a change said of something else the query also names for an update', () => {
    // BEAM chat 13: the goal counts books, the list counted series and pages.
    const list = item('nov', MARCH, 'My new reading list has 8 series now, with about 4,800 pages to get through.');
    const goal = item(
      'dec',
      MAY,
      "I'm picking a fiction series and I've extended my reading challenge goal to 12 books.",
    );
    expect(order([list, goal], 'How many series are on my reading list?')).toEqual(['nov', 'dec']);
  });

  it('does not take a said change of something with too many other figures for an update', () => {
    const changedMany = item(
      'may',
      MAY,
      'I added sources to my Zotero library: 12 from 2019, 18 from 2021, 9 from 2023 and 13 from 2024.',
    );
    expect(order([original, changedMany], zoteroQuery)).toEqual(['march', 'may']);
  });

  it('leaves an update further than UPDATE_REACH places below where it is', () => {
    const filler = Array.from({ length: UPDATE_REACH }, (_, i) =>
      item(`f${i}`, APRIL, `Filler sentence ${'x'.repeat(i)}.`),
    );
    const out = order([original, ...filler, update], zoteroQuery);
    expect(out[0]).toBe('march');
    expect(out.at(-1)).toBe('may');
  });
});

describe('updatesFirst: an update that says what the value changed to is found further down', () => {
  const fillers = (n: number) =>
    Array.from({ length: n }, (_, i) => item(`f${i}`, APRIL, `Filler sentence ${'x'.repeat(i)}.`));
  const grown = item('june', '2024-06-10T09:00:00.000Z', 'My Zotero library has grown to 52 sources this term.');

  it('moves it from just beyond UPDATE_REACH places below, and from UPDATE_OUTRIGHT_REACH', () => {
    for (const n of [UPDATE_REACH, UPDATE_OUTRIGHT_REACH - 1]) {
      const out = order([original, ...fillers(n), grown], zoteroQuery);
      expect(out.slice(0, 2)).toEqual(['june', 'march']);
    }
  });

  it('leaves it where it is beyond UPDATE_OUTRIGHT_REACH', () => {
    const out = order([original, ...fillers(UPDATE_OUTRIGHT_REACH), grown], zoteroQuery);
    expect(out[0]).toBe('march');
    expect(out.at(-1)).toBe('june');
  });

  it('does not reach that far for a change verb far from the new value', () => {
    const addedElsewhere = item(
      'june',
      '2024-06-10T09:00:00.000Z',
      'I added a citation style to my Zotero library, and tagging by theme and date keeps it at 52 sources.',
    );
    const out = order([original, ...fillers(UPDATE_REACH), addedElsewhere], zoteroQuery);
    expect(out[0]).toBe('march');
  });

  it('prefers an update within UPDATE_REACH to a newer one further down', () => {
    const out = order([original, update, ...fillers(UPDATE_REACH), grown], zoteroQuery);
    expect(out.slice(0, 2)).toEqual(['may', 'march']);
  });
});

describe('updatesFirst: a question about then keeps the statement of then first', () => {
  it('moves nothing for a question asked in the past tense ("did", "was", "were", "had", or a past verb alone)', () => {
    for (const query of [
      'How many sources did I have in my Zotero library?',
      'How many sources were in my Zotero library?',
      'What was the number of sources in my Zotero library?',
      'How many sources had my Zotero library reached before the essay?',
      // No auxiliary: the verb itself is in the past.
      'How many sources went into my Zotero library?',
    ])
      expect(order([original, unrelated, update], query), query).toEqual(['march', 'essay', 'may']);
  });

  it('still moves the newer value for a question about now, whatever its later verbs say', () => {
    for (const query of [zoteroQuery, 'How many sources have I added to my Zotero library since I was in March?'])
      expect(order([original, unrelated, update], query), query).toEqual(['may', 'march', 'essay']);
  });

  it('keeps the older statement first when the question names a value only it holds', () => {
    const query = 'What do I tag the 45 sources in my Zotero library by?';
    expect(order([original, unrelated, update], query)).toEqual(['march', 'essay', 'may']);
  });

  it('moves the newer value when the question names a value both statements hold', () => {
    const older = item('march', MARCH, 'My 2024 Zotero library has 45 sources, tagged by theme.');
    const newer = item('may', MAY, 'My 2024 Zotero library now has 52 sources, tagged by theme.');
    expect(order([older, newer], 'How many sources are in my 2024 Zotero library?')).toEqual(['may', 'march']);
  });
});
