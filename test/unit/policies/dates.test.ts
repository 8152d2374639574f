import { describe, expect, it } from 'vitest';
import {
  findTimeMentions,
  formatMention,
  hasRelativeTime,
  mentionCovers,
  mentionsOverlap,
} from '../../../policies/dates.ts';

// 8 May 2023 was a Monday.
const MONDAY = '2023-05-08T14:30:00.000Z';

describe('findTimeMentions resolves time words against the record time', () => {
  it.each([
    ['I went to a support group yesterday', 'yesterday', '7 May 2023'],
    ['My daughter’s birthday is next Tuesday', 'next Tuesday', '9 May 2023'],
    ['We met last Tuesday', 'last Tuesday', '2 May 2023'],
    ['The meeting is today', 'today', '8 May 2023'],
    ['I will call tomorrow', 'tomorrow', '9 May 2023'],
    ['I started painting 3 days ago', '3 days ago', '5 May 2023'],
    ['I moved here two weeks ago', 'two weeks ago', 'the week of 24 April 2023'],
    ['We adopted a dog last month', 'last month', 'April 2023'],
    ['I graduated last year', 'last year', '2022'],
    ['The race is in 10 days', 'in 10 days', '18 May 2023'],
    ['We go camping next weekend', 'next weekend', '20 May 2023'],
    ['Born on 7 May 1990', '7 May 1990', '7 May 1990'],
    ['Due May 21, 2023', 'May 21, 2023', '21 May 2023'],
    ['Deadline 2023-06-01', '2023-06-01', '1 June 2023'],
    // The coarser forms formatMention writes read back.
    ['We went camping in June 2023', 'June 2023', 'June 2023'],
    ['She started transitioning in 2020', 'in 2020', '2020'],
    // A day without a year: in the year it was said, unless another year's is much nearer.
    ['I missed the book club meeting on May 5', 'May 5', '5 May 2023'],
    ['The essay is due June 15th', 'June 15th', '15 June 2023'],
    ['My flight to Toronto is on August 20 at 4:15 PM', 'August 20', '20 August 2023'],
    ['My wedding is on November 20', 'November 20', '20 November 2023'],
    ['My visa appointment was on Jan. 9', 'Jan. 9', '9 January 2023'],
    // The day first, as most of the world writes it, and a month typed in lower case.
    ['The shoot is on 6 April', '6 April', '6 April 2023'],
    ['We meet on the 6th of April', 'the 6th of April', '6 April 2023'],
    ['see you april 6', 'april 6', '6 April 2023'],
    ['the deadline is 15 sept', '15 sept', '15 September 2023'],
  ])('%s', (text, words, absolute) => {
    const [m] = findTimeMentions(text, MONDAY);
    expect(m?.text).toBe(words);
    expect(formatMention(m!)).toBe(absolute);
  });

  it('finds nothing in text without time words, and nothing for an invalid record time', () => {
    expect(findTimeMentions('I like aisle seats', MONDAY)).toEqual([]);
    expect(findTimeMentions('see you tomorrow', 'not a date')).toEqual([]);
  });

  it('takes a day near the turn of the year from the neighbouring year', () => {
    const [after] = findTimeMentions('The trip was on December 28', '2024-01-03T10:00:00.000Z');
    expect(formatMention(after!)).toBe('28 December 2023');
    const [before] = findTimeMentions('The conference starts January 4', '2023-12-20T10:00:00.000Z');
    expect(formatMention(before!)).toBe('4 January 2024');
  });

  it('reads the second day of a pair as a day of the same month', () => {
    const days = findTimeMentions('I had to reject the weekend shoots on April 6 and 7', MONDAY);
    expect(days.map((m) => [m.text, formatMention(m)])).toEqual([
      ['April 6', '6 April 2023'],
      ['7', '7 April 2023'],
    ]);
    expect(findTimeMentions('Pick June 3 or 4th', MONDAY).map(formatMention)).toEqual(['3 June 2023', '4 June 2023']);
    expect(findTimeMentions('Sales rose on April 6 and 7% of them', MONDAY).map(formatMention)).toEqual([
      '6 April 2023',
    ]);
    // A year written once for both days is the year of both.
    expect(findTimeMentions('The shoots are on 6 and 7 April 2025', MONDAY).map(formatMention)).toEqual([
      '6 April 2025',
      '7 April 2025',
    ]);
    expect(findTimeMentions('The shoots are on April 6 and 7, 2025', MONDAY).map(formatMention)).toEqual([
      '6 April 2025',
      '7 April 2025',
    ]);
    const dayFirst = findTimeMentions('I paid $6 for the shoots on 6 and 7 April', MONDAY);
    expect(dayFirst.map((m) => [m.text, formatMention(m)])).toEqual([
      ['6', '6 April 2023'],
      ['7 April', '7 April 2023'],
    ]);
  });

  it('gives no year to a day that comes back every year, but does to an event on a birthday', () => {
    for (const text of [
      'My birthday is December 5',
      'I was born on March 3',
      'Our anniversary falls on June 2',
      'My birthday is 5 December',
      'I was born on the 3rd of March',
    ])
      expect(findTimeMentions(text, MONDAY)).toEqual([]);
    const [party] = findTimeMentions('I celebrated my birthday on March 3', MONDAY);
    expect(formatMention(party!)).toBe('3 March 2023');
  });

  it('reads no day out of a range, a time of day, a score, "may" the verb or an impossible date', () => {
    for (const text of [
      'We fly June 1-3',
      'Class is at 7:30',
      'I scored 4/5',
      'Due February 30',
      'I may 2 of them',
      'The 2 may be related',
      'Version 2 May be out soon',
      'Step 3 May need a retry',
      'we march 3 miles',
      'Due 30 February',
    ])
      expect(findTimeMentions(text, MONDAY).filter((m) => m.precision === 'day')).toEqual([]);
  });

  it('does not read a date out of a longer phrase twice', () => {
    expect(findTimeMentions('last week and yesterday', MONDAY).map((m) => m.text)).toEqual(['last week', 'yesterday']);
  });
});

describe('hasRelativeTime and mentionCovers', () => {
  it('tells relative words from absolute dates', () => {
    expect(hasRelativeTime('It was moved to next Tuesday')).toBe(true);
    expect(hasRelativeTime('It was moved to 9 May 2023')).toBe(false);
  });

  it('a day inside a week or month mention agrees with it, a day outside does not', () => {
    const [week] = findTimeMentions('last week', MONDAY);
    expect(mentionCovers(week!, '2023-05-03T09:00:00Z')).toBe(true);
    expect(mentionCovers(week!, '2023-05-08T09:00:00Z')).toBe(false);
  });

  it('periods overlap when they share a day', () => {
    const [year] = findTimeMentions('in 2023', MONDAY);
    const [yesterday] = findTimeMentions('yesterday', MONDAY);
    const [lastYear] = findTimeMentions('last year', MONDAY);
    expect(mentionsOverlap(year!, yesterday!)).toBe(true);
    expect(mentionsOverlap(yesterday!, year!)).toBe(true);
    expect(mentionsOverlap(lastYear!, yesterday!)).toBe(false);
  });
});
