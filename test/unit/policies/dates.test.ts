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
  ])('%s', (text, words, absolute) => {
    const [m] = findTimeMentions(text, MONDAY);
    expect(m?.text).toBe(words);
    expect(formatMention(m!)).toBe(absolute);
  });

  it('finds nothing in text without time words, and nothing for an invalid record time', () => {
    expect(findTimeMentions('I like aisle seats', MONDAY)).toEqual([]);
    expect(findTimeMentions('see you tomorrow', 'not a date')).toEqual([]);
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
