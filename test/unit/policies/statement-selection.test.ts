import { describe, expect, it } from 'vitest';
import { selectStatement, type Rejection, type SentenceContext } from '../../../policies/statement-selection.ts';

const friends: SentenceContext = { withAgent: false, listener: 'Gina', observedAt: '2023-05-08T13:56:00Z' };
const customer: SentenceContext = { withAgent: true, observedAt: '2024-05-15T10:00:00Z' };

describe('sentences that do not become notes', () => {
  it.each<[string, SentenceContext, Rejection]>([
    // Nothing named: the subject or the object points back at an earlier turn.
    ['It reminded me of how powerful compassion can be.', friends, 'not_about_speaker'],
    ['It was rich and creamy - might be my new favorite snack!', friends, 'not_about_speaker'],
    ["Here's a pic from when I was dancing - it was a tough road, but it was worth it!", friends, 'not_about_speaker'],
    ['Seeing the smiles on their faces really made me feel good.', friends, 'not_about_speaker'],
    ['I see them at least once a week.', friends, 'no_referent'],
    ['I have had them for 3 years now and they bring me tons of joy!', friends, 'no_referent'],
    ["I'm definitely going to check it out!", friends, 'exchange'],
    ['I really love having them around.', friends, 'no_referent'],
    ['I am getting people together to chat about this and discuss potential solutions.', friends, 'no_referent'],
    // "We" leaves open who; a lead-in about the conversation makes the whole sentence relative to it.
    ['We love climbing, sliding, and playing games.', friends, 'we_hides_who'],
    ['We go a few times a week.', friends, 'we_hides_who'],
    ['Something massive happened since we last spoke.', friends, 'not_about_speaker'],
    // Replies: about the person addressed, reactions, moves in the conversation.
    ['I can picture you all laughing and having a blast making your own pizzas.', friends, 'about_listener'],
    ['I am so impressed by your willingness to take risks.', friends, 'about_listener'],
    ["I'm definitely in for the show.", friends, 'exchange'],
    ['I really like the idea and the acting.', friends, 'exchange'],
    ['I appreciate all the support, it means a lot.', friends, 'exchange'],
    ["I'll keep chasing those dreams.", friends, 'exchange'],
    // Told to an agent: choices, wishes and what the customer does not know belong to that dialogue.
    ['I will go with the first option, Flight HAT136 & HAT039.', customer, 'dialogue_move'],
    ['I would also like to cancel another reservation with the ID NQNU5R.', customer, 'dialogue_move'],
    ["I don't remember the reservation ID.", customer, 'dialogue_move'],
    ["I'm okay with the original payment going towards this reservation.", customer, 'exchange'],
    ['I really need some form of resolution here.', customer, 'dialogue_move'],
    ['I thought the system would allow me to remove the checked bag.', customer, 'dialogue_move'],
    ['I was hoping to adjust my flight plans a bit.', customer, 'dialogue_move'],
    // What a customer read or was told elsewhere is a claim for the agent to check, not a fact.
    ['I read on the website that change fees are covered by the insurance.', customer, 'dialogue_move'],
    ['I was told that the upgrade would be free.', customer, 'dialogue_move'],
    // A quantity of nothing named, a clause that only repeats an auxiliary, "our" that leaves open whose.
    ["It's definitely isn't, Maria. My kids have so much and others don't.", friends, 'not_about_speaker'],
    ["My kids have so much and others don't.", friends, 'no_referent'],
    ['I truly felt the power of our collective effort to help people in need.', friends, 'we_hides_who'],
    // Offers and reactions in reply.
    ["I'm always down to give movie reccomendations.", friends, 'exchange'],
    ["I'm tempted to try dairy-free flavors now!", friends, 'exchange'],
    // An acknowledgement is a move in the talk; what follows it is judged on its own.
    ["I see, so that's the key to making a difference.", friends, 'not_about_speaker'],
    ['I understand.', friends, 'exchange'],
    // A feeling that names nothing it is about is a reaction.
    ['I felt so accepted and happy, just being around people who accepted and celebrated me.', friends, 'exchange'],
    ["I'm excited to see where pottery takes me.", friends, 'exchange'],
    // A time that cannot be made absolute.
    ['I moved to Boston a few years ago.', friends, 'relative_time'],
    // Code shown to the listener is no statement; what introduces it names nothing.
    ["I've got the following code so far: ```python import sqlite3 ```", customer, 'no_referent'],
    // An offer in the dialogue, not something the customer has.
    ['I do have my flight confirmation number if that helps.', customer, 'exchange'],
    // A question announced is no fact, whatever it is about.
    ["I've got a question about the probate timeline that Stephanie explained.", customer, 'exchange'],
    // A leave-taking that says no when, and an offer to listen.
    ["I'm off to bake some cakes.", friends, 'exchange'],
    ["I'm here to lend an ear or help out however I can.", friends, 'exchange'],
    // An object that names nothing: what was done or what puzzles is told in another sentence.
    ['Last weekend I did something new that had an impact on me.', friends, 'no_referent'],
    ["Lately, I've been stumped about something.", friends, 'no_referent'],
    ['I might check that one out some time soon!', friends, 'no_referent'],
    // "them" with nothing plural before it stands for what another turn named.
    ["I've thought a lot about how much I need them.", friends, 'no_referent'],
    ['I worked on a project to support them in May 2023.', friends, 'no_referent'],
    // Only the clause a conjunction makes dependent: the answer to a question about something else.
    ['Since I was 17 or so.', friends, 'no_referent'],
  ])('%s', (sentence, ctx, reason) => {
    expect(selectStatement(sentence, ctx)).toEqual({ kept: false, reason });
  });
});

describe('sentences that do, cleaned', () => {
  it.each<[string, SentenceContext, string]>([
    [
      'I went to a LGBTQ support group yesterday and it was so powerful.',
      friends,
      'I went to a LGBTQ support group yesterday and it was so powerful.',
    ],
    // The name of the person addressed is not part of the statement, at either end.
    [
      'Gina, my online clothing store has been a roller coaster but rewarding.',
      friends,
      'My online clothing store has been a roller coaster but rewarding.',
    ],
    ['Hey Gin! I started a new job at the bakery.', friends, 'I started a new job at the bakery.'],
    ['I finally finished my first marathon, Gina!', friends, 'I finally finished my first marathon!'],
    // A stage direction is not speech; a joining word says nothing.
    [
      'And I bought a cross necklace to feel closer to my faith. [shares a photo: a necklace]',
      friends,
      'I bought a cross necklace to feel closer to my faith.',
    ],
    // A lead-in that says when stays; one about the conversation or the mood goes.
    [
      'Last week, I joined a mentorship program for LGBTQ youth.',
      friends,
      'Last week, I joined a mentorship program for LGBTQ youth.',
    ],
    ['Since we last spoke, I took my kids to a park.', friends, 'I took my kids to a park.'],
    [
      'Had a wild week, my car broke down last Fri on my way to work.',
      friends,
      'My car broke down last Fri on my way to work.',
    ],
    // "that" opening a clause is not a pointer back; a pronoun after its noun has a referent.
    ['I learned that pottery takes a lot of patience.', friends, 'I learned that pottery takes a lot of patience.'],
    [
      'My kids love the beach and they go there every summer.',
      friends,
      'My kids love the beach and they go there every summer.',
    ],
    // A plan that says when is a statement, not a promise in reply.
    ["I'll be running a charity 5K in March 2024.", friends, "I'll be running a charity 5K in March 2024."],
    // To an agent: what the customer is and has stays; the rest of the reply after it is cut.
    [
      'My user ID is omar_davis_3817, but I am not sure about the reservation IDs.',
      customer,
      'My user ID is omar_davis_3817.',
    ],
    [
      // Why this booking is cancelled belongs to the task; who the customer is does not.
      'My user ID is mia_kim_4397, and the reason for cancellation is a change of plan.',
      customer,
      'My user ID is mia_kim_4397.',
    ],
    ['I am a gold member.', customer, 'I am a gold member.'],
    // A rating spliced on with a comma or a dash goes; one joined with "and" stays.
    ['I made some peach cobbler recently, it was great.', friends, 'I made some peach cobbler recently.'],
    ['I know, right, I adopted a dog named Max in 2021.', friends, 'I adopted a dog named Max in 2021.'],
    [
      "I'm excited about my pottery class on 12 May 2023.",
      friends,
      "I'm excited about my pottery class on 12 May 2023.",
    ],
    ['I was good at math in school.', friends, 'I was good at math in school.'],
    // Among people, what someone read is something they did.
    ['I read a book on Roman history last week.', friends, 'I read a book on Roman history last week.'],
    // A question joined by a comma, typed without its question mark, is not part of the statement.
    [
      "I've added 52 sources to my Zotero library, how can I efficiently organize them for my essay",
      customer,
      "I've added 52 sources to my Zotero library.",
    ],
    [
      "I've never used any citation management software, like Zotero, so how do I get started with it",
      customer,
      "I've never used any citation management software, like Zotero.",
    ],
    [
      "I discussed AI concerns with my son Francis during dinner on March 12, and now I'm thinking, should I pilot AI",
      customer,
      'I discussed AI concerns with my son Francis during dinner on March 12.',
    ],
    [
      'I had to reject the weekend shoots on April 6 and 7 to focus on my research, was that a good call',
      customer,
      'I had to reject the weekend shoots on April 6 and 7 to focus on my research.',
    ],
    // The question may carry what the statement needs no more than a question mark would: ", can you help".
    ['My Zotero library has 45 sources, can you help me tag them', customer, 'My Zotero library has 45 sources.'],
    // Told to an agent, a move may open the sentence; the statement after it stands on its own.
    [
      "I'm trying to decide on a fiction series, and I've extended my reading challenge goal to 12 books by March 1",
      customer,
      "I've extended my reading challenge goal to 12 books by March 1.",
    ],
    // A leave-taking that says when is a plan; a dependent clause with its main clause is a statement.
    ["I'm off to Lisbon next week.", friends, "I'm off to Lisbon next week."],
    ['When I was a kid I loved reading comics.', friends, 'When I was a kid I loved reading comics.'],
    ['Since I moved to Denver, I run every morning.', friends, 'Since I moved to Denver, I run every morning.'],
    // "them" after the plural or the group it stands for.
    [
      "I've met some amazing young folks and supported them along the way.",
      friends,
      "I've met some amazing young folks and supported them along the way.",
    ],
    [
      'My family means everything and I visit them every Sunday.',
      friends,
      'My family means everything and I visit them every Sunday.',
    ],
    // A relative clause is no question: no auxiliary stands before a pronoun.
    [
      'My sister, who is my best friend, moved to Paris in 2020.',
      friends,
      'My sister, who is my best friend, moved to Paris in 2020.',
    ],
    [
      'I went hiking with my dad, when I was in Denver in May 2020.',
      friends,
      'I went hiking with my dad, when I was in Denver in May 2020.',
    ],
  ])('%s', (sentence, ctx, text) => {
    expect(selectStatement(sentence, ctx)).toEqual({ kept: true, text });
  });
});
