import { describe, expect, it } from 'vitest';
import { absoluteTimes, datedOngoing, splitStatement } from '../../../policies/statements.ts';
import { thirdPersonVerb, toThirdPerson } from '../../../policies/third-person.ts';

const voices = { speaker: 'Caroline', listener: 'Melanie' };
// 8 May 2023 was a Monday.
const MONDAY = '2023-05-08T14:30:00.000Z';

describe('toThirdPerson names the speaker and keeps every content word', () => {
  it.each([
    ['I went to a support group', 'Caroline went to a support group'],
    ['Last week I retook the aptitude test', 'Last week Caroline retook the aptitude test'],
    ['I like aisle seats', 'Caroline likes aisle seats'],
    ['For me I just get deep in thought', 'Caroline just gets deep in thought'],
    ['As for me, I prefer tea', 'Caroline prefers tea'],
    ['It rained, but for me I stayed dry', 'It rained, but Caroline stayed dry'],
    ['It means a lot for me', 'It means a lot for Caroline'],
    ['I really love painting', 'Caroline really loves painting'],
    ["I'm a counselor", 'Caroline is a counselor'],
    ["I've been painting", 'Caroline has been painting'],
    ["I don't eat meat", "Caroline doesn't eat meat"],
    ['I am moving to Boston', 'Caroline is moving to Boston'],
    ['I have two kids', 'Caroline has two kids'],
    ['I go hiking', 'Caroline goes hiking'],
    ['I distinctly remember adding it', 'Caroline distinctly remembers adding it'],
    ['I recently moved to Boston', 'Caroline recently moved to Boston'],
    ['I already booked a room for $220 per night', 'Caroline already booked a room for $220 per night'],
    ['I study biology', 'Caroline studies biology'],
    // A hyphenated verb agrees in its last part; a past one stays.
    ['I color-code achievements', 'Caroline color-codes achievements'],
    ['I co-founded a startup', 'Caroline co-founded a startup'],
    // A verb in -ly is the verb, not an adverb before it.
    ['I always fly economy', 'Caroline always flies economy'],
    ['I apply for grants every spring', 'Caroline applies for grants every spring'],
    ['I will call tomorrow', 'Caroline will call tomorrow'],
    ['My dog is sick', "Caroline's dog is sick"],
    // "me" joined to a noun by a hyphen is part of that noun.
    ["I'm carving out some me-time each day", 'Caroline is carving out some me-time each day'],
    ['Give me a call', 'Give Caroline a call'],
    ['My kids and I painted a sunrise', "Caroline's kids and Caroline painted a sunrise"],
    ["It's late, and I need sleep", "It's late, and Caroline needs sleep"],
    ['I told you about my trip', "Caroline told Melanie about Caroline's trip"],
    ['You are right and I agree', 'Melanie is right and Caroline agrees'],
    ['We went camping', 'Caroline and others went camping'],
    ['The museum opens at nine', 'The museum opens at nine'],
    // A second verb joined by "and" agrees too, within the speaker's own clause only.
    ["I've got flat feet and need sneakers", 'Caroline has got flat feet and needs sneakers'],
    ['I love hiking, and need boots', 'Caroline loves hiking, and needs boots'],
    ['I have a dog and cats', 'Caroline has a dog and cats'],
    // "to" before a determiner is a preposition: the verb after "and" still agrees.
    ["I'm going to the store and need milk", 'Caroline is going to the store and needs milk'],
    ["I've been busy and haven't slept", "Caroline has been busy and hasn't slept"],
    ["I work late and don't cook", "Caroline works late and doesn't cook"],
    // After a past form too: the second verb is the speaker's present one.
    ['I went home and need sleep', 'Caroline went home and needs sleep'],
    ['I was tired and am sleepy now', 'Caroline was tired and is sleepy now'],
    ['I will go and see', 'Caroline will go and see'],
    // "it" after a verb is its object, not a new subject; "gonna" is "going to".
    ['I liked it and want more', 'Caroline liked it and wants more'],
    ["I'm gonna give it a shot and see how it goes", 'Caroline is gonna give it a shot and see how it goes'],
    ['I love hiking and it is fun', 'Caroline loves hiking and it is fun'],
    [
      'I want to use my platform and make a difference',
      "Caroline wants to use Caroline's platform and make a difference",
    ],
    [
      "I'm sure people will recognise you and love the book",
      'Caroline is sure people will recognise Melanie and love the book',
    ],
    [
      "Moments like this remind me why I'm chasing my dream and keep me pushing",
      "Moments like this remind Caroline why Caroline is chasing Caroline's dream and keep Caroline pushing",
    ],
    // Questions: the auxiliary before "I" agrees with the name, the verb after it stays.
    ['How long did I say the project takes?', 'How long did Caroline say the project takes?'],
    ['Have I used Bootstrap before?', 'Has Caroline used Bootstrap before?'],
    ['Do I like my job?', "Does Caroline like Caroline's job?"],
    ['Am I on the list?', 'Is Caroline on the list?'],
    ["Why don't I get refunds?", "Why doesn't Caroline get refunds?"],
    ['Can I change my seat?', "Can Caroline change Caroline's seat?"],
  ])('%s', (text, expected) => expect(toThirdPerson(text, voices)).toBe(expected));

  it.each([
    ['like', 'likes'],
    ['go', 'goes'],
    ['try', 'tries'],
    ['watch', 'watches'],
    ['have', 'has'],
    ['play', 'plays'],
  ])('%s → %s', (verb, third) => expect(thirdPersonVerb(verb)).toBe(third));
});

describe('absoluteTimes writes the day a relative time word meant', () => {
  it.each([
    ['Caroline went to a group yesterday', 'Caroline went to a group on 7 May 2023', 'yesterday'],
    ['The party is next Tuesday', 'The party is on 9 May 2023', 'next Tuesday'],
    ['Melanie has painted since last year', 'Melanie has painted since 2022', 'last year'],
    ['We adopted a dog last month', 'We adopted a dog in April 2023', 'last month'],
    ['We went camping last weekend', 'We went camping on the weekend of 6 May 2023', 'last weekend'],
    ['Born on 7 May 1990', 'Born on 7 May 1990', '7 May 1990'],
    ['Last week was wild', 'The week of 1 May 2023 was wild', 'Last week'],
    ['Yesterday Caroline went home', 'On 7 May 2023 Caroline went home', 'Yesterday'],
    [
      'Caroline missed the shoots on April 6 and 7',
      'Caroline missed the shoots on 6 April 2023 and 7 April 2023',
      'April 6',
    ],
    [
      'Caroline missed the shoots on April 6 and 7, 2025',
      'Caroline missed the shoots on 6 April 2025 and 7 April 2025',
      'April 6',
    ],
    ['The shoots are on 6 and 7 April 2025', 'The shoots are on 6 April 2025 and 7 April 2025', '6'],
    ['Version 2 May 3 fixed the export', 'Version 2 May 3, 2023 fixed the export', 'May 3'],
  ])('%s', (text, expected, source) => {
    const out = absoluteTimes(text, MONDAY);
    expect(out.text).toBe(expected);
    expect(out.time?.source).toBe(source);
  });

  it('keeps a pair of days as named where days keep their words, and a birthday without a year', () => {
    const pair = 'Caroline missed the shoots on April 6 and 7';
    expect(absoluteTimes(pair, MONDAY, { keepDaysWithoutYear: true }).text).toBe(pair);
    expect(absoluteTimes("Caroline's birthday is December 5", MONDAY)).toEqual({
      text: "Caroline's birthday is December 5",
    });
  });

  it('leaves text without time words alone and gives it no time', () => {
    expect(absoluteTimes('Caroline likes tea', MONDAY)).toEqual({ text: 'Caroline likes tea' });
  });
});

describe('splitStatement reads subject, attribute, value and polarity', () => {
  it.each([
    ['Caroline went to a support group', { attribute: 'went to', value: 'a support group', polarity: 'positive' }],
    ['Caroline is a counselor', { attribute: 'is', value: 'a counselor', polarity: 'positive' }],
    ["Caroline doesn't like horror films", { attribute: 'does like', value: 'horror films', polarity: 'negative' }],
    ['Caroline is not sure about it', { attribute: 'is', value: 'sure about it', polarity: 'negative' }],
    ['Caroline lives in Boston', { attribute: 'lives in', value: 'Boston', polarity: 'positive' }],
    ['Caroline is going to the park', { attribute: 'is going to', value: 'the park', polarity: 'positive' }],
  ])('%s', (sentence, parts) => expect(splitStatement(sentence, 'Caroline')).toEqual(parts));

  it('reads nothing from a sentence that does not open with its subject', () => {
    expect(splitStatement("Caroline's kids painted", 'Caroline')).toBeUndefined();
  });
});

describe('datedOngoing: what is going on holds as of the day it was said', () => {
  it.each([
    ['Jon is expanding his studio.', 'As of 8 May 2023, Jon is expanding his studio.'],
    ["Gina's online store is doing well.", "As of 8 May 2023, Gina's online store is doing well."],
    ['Nate has just been practicing.', 'As of 8 May 2023, Nate has just been practicing.'],
    ['Maria has been busy volunteering.', 'As of 8 May 2023, Maria has been busy volunteering.'],
    ["All Tim's hard work is paying off.", "As of 8 May 2023, all Tim's hard work is paying off."],
    ["Gina's online clothes store is open!", "As of 8 May 2023, Gina's online clothes store is open!"],
    ["Jon's knee is still sore.", "As of 8 May 2023, Jon's knee is still sore."],
  ])('%s', (text, dated) => {
    expect(datedOngoing(text, MONDAY)).toEqual({ text: dated, time: { at: MONDAY, source: 'as of' } });
  });

  it.each([
    // What something is like, or a thing: no state that goes on.
    'Jon is amazing at it.',
    'The studio is interesting.',
    'Gina is something else.',
    "Jon's studio is amazing.",
    "Gina's store is a hit.",
    // A past event, a habit, a statement that does not open with its subject.
    'Jon went hiking.',
    'Jon likes hiking.',
    'Yesterday Jon was hiking.',
  ])('leaves alone: %s', (text) => {
    expect(datedOngoing(text, MONDAY)).toEqual({ text });
  });
});
