import { describe, expect, it } from 'vitest';
import { inTimeWindows, namedTimeWindows, timesNamedIn } from '../../../policies/query-time.ts';

const ASKED = new Date('2023-09-01T10:00:00Z');
const iso = (windows: ReturnType<typeof namedTimeWindows>) =>
  windows.map((w) => [w.from.toISOString().slice(0, 10), w.to.toISOString().slice(0, 10)]);

describe('the times a question names', () => {
  it.each([
    ['What did Maria plan to do later on the evening of 7 July, 2023?', [['2023-07-07', '2023-07-09']]],
    ['What kind of experience did Gina get accepted for on May 23, 2023?', [['2023-05-23', '2023-05-25']]],
    ['What type of workout class did Maria start doing in December 2022?', [['2022-12-01', '2023-01-01']]],
    // A day without its year is the nearest such day to when the question is asked.
    ['Who did Maria have dinner with on May 3?', [['2023-05-03', '2023-05-05']]],
    // A month named alone is the last such month begun by the time of asking.
    ['When did Melanie go camping in June?', [['2023-06-01', '2023-07-01']]],
    ['What kind of deal did John get in December?', [['2022-12-01', '2023-01-01']]],
    ['Which outdoor spot did Joanna visit in May?', [['2023-05-01', '2023-06-01']]],
    [
      'Where was John between 11 August 2023 and 15 August 2023?',
      [
        ['2023-08-11', '2023-08-13'],
        ['2023-08-15', '2023-08-17'],
      ],
    ],
  ])('%s', (question, windows) => {
    expect(iso(namedTimeWindows(question, ASKED, 1))).toEqual(windows);
  });

  it('leaves out what is relative to the asking, and a year (too wide to read records by)', () => {
    expect(timesNamedIn('What did Maria do last weekend?', ASKED)).toEqual([]);
    expect(namedTimeWindows('What did Maria do last weekend?', ASKED, 1)).toEqual([]);
    // "before April 10, 2023" keeps its day; "last weekend" is read against that day by no one.
    expect(iso(namedTimeWindows('What did Maria do last weekend before April 10, 2023?', ASKED, 1))).toEqual([
      ['2023-04-10', '2023-04-12'],
    ]);
    expect(timesNamedIn('How many times has Melanie gone to the beach in 2023?', ASKED)).toHaveLength(1);
    expect(namedTimeWindows('How many times has Melanie gone to the beach in 2023?', ASKED, 1)).toEqual([]);
    expect(namedTimeWindows('What does Melanie like to paint?', ASKED, 1)).toEqual([]);
    // "may" and "march" in lower case are words too.
    expect(namedTimeWindows('Is that something I could fit in may be later?', ASKED, 1)).toEqual([]);
    expect(namedTimeWindows('Who joined in march against the plan?', ASKED, 1)).toEqual([]);
  });

  it('counts a day with the days after it the slack allows, and nothing before it', () => {
    const [day] = namedTimeWindows('on 7 July, 2023', ASKED, 1);
    const windows = day === undefined ? [] : [day];
    expect(inTimeWindows('2023-07-06T23:59:00.000Z', windows)).toBe(false);
    expect(inTimeWindows('2023-07-07T00:00:00.000Z', windows)).toBe(true);
    expect(inTimeWindows('2023-07-08T20:00:00.000Z', windows)).toBe(true);
    expect(inTimeWindows('2023-07-09T00:00:00.000Z', windows)).toBe(false);
    expect(iso(namedTimeWindows('on 7 July, 2023', ASKED, 0))).toEqual([['2023-07-07', '2023-07-08']]);
  });
});
