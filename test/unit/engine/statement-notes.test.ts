import { describe, expect, it } from 'vitest';
import { attributeEpisode } from '../../../policies/attribution.ts';
import { reconcile } from '../../../policies/reconcile.ts';
import { validateProposal, type ResolvedRecord } from '../../../policies/validation.ts';
import type { RawRecordInput } from '../../../src/contracts/raw-record.ts';
import { createDeterministicEngine } from '../../../src/engine/deterministic.ts';
import { archived, toEpisodes } from '../../helpers/episodes.ts';

/**
 * What one message of a conversation becomes: the claims of the notes the deterministic engine
 * writes from it (statements and preferences), rendered in the third person with absolute dates.
 */

let n = 0;
const id = () => `01JF${String(++n).padStart(22, '0')}`;

function message(userId: string, text: string, minute: number, extra: Partial<RawRecordInput> = {}): RawRecordInput {
  return {
    id: id(),
    tenantId: 'talk',
    userId,
    agentId: 'chat',
    sessionId: 'session_4',
    kind: 'user_message',
    source: 'user',
    // Monday 8 May 2023.
    observedAt: new Date(Date.UTC(2023, 4, 8, 14, minute)).toISOString(),
    text,
    ...extra,
  };
}

/** Jon says something to Gina after she spoke; with `agent`, customer-7 tells an assistant. */
async function claimsOf(text: string, agent = false, agentSays = 'How can I help?'): Promise<string[]> {
  const records = agent
    ? [
        message('customer-7', 'Hi.', 0, { taskId: 't-1', taskType: 'airline' }),
        {
          ...message('customer-7', agentSays, 1, { taskId: 't-1', taskType: 'airline' }),
          kind: 'agent_message' as const,
          source: 'agent' as const,
          userId: undefined,
        },
        message('customer-7', text, 2, { taskId: 't-1', taskType: 'airline' }),
      ]
    : [message('Gina', 'My store opened last month, it has been a ride.', 0), message('Jon', text, 1)];
  const rs = archived(records);
  const episodes = toEpisodes(rs);
  const findings = episodes.flatMap((e) => attributeEpisode(e));
  const { proposals } = await createDeterministicEngine().propose({
    episodes,
    findings,
    activeNotes: [],
    now: new Date('2023-06-01T00:00:00Z'),
  });
  const resolved = new Map<string, ResolvedRecord>(
    rs.map((r) => [r.record.id, { record: r.record, contentHash: r.ref.contentHash }]),
  );
  const last = rs.at(-1)!.record.id;
  const mine = proposals.filter(
    (p) => p.content.kind !== 'episode_summary' && p.content.evidence.some((e) => e.recordId === last),
  );
  for (const p of mine) expect(validateProposal(p, 'talk', resolved)).toEqual({ verdict: 'accept' });
  return mine.map((p) => p.content.claim);
}

describe('messages that leave no note', () => {
  it.each([
    ['It reminded me of how powerful compassion can be.'],
    ['I see them at least once a week.'],
    ['It was rich and creamy - might be my new favorite snack! [shares a photo: a bowl of ice cream]'],
    ["I'm definitely in for the show!"],
    ['We love climbing, sliding, and playing games.'],
    ['I really like the idea and the acting.'],
    ['I can picture you all laughing and having a blast making your own pizzas.'],
    ['Something massive happened since we last spoke.'],
    // A reaction to what the other person showed, and a topic named only in an earlier turn.
    ['I love the self-acceptance and love theme.'],
    ['I just had to try to capture that feeling in my painting.'],
    ['I tried to stay calm and asked for help, which helped me handle the situation.'],
    ["I'm still figuring out the details."],
    ['I wanted to bring that same magic to my home.'],
    ['I am thinking of working with some fashion bloggers in the next few months.'],
    // "it" or "this" after a preposition stands for what another turn or a photo named.
    ['I chatted with my family and friends about it.'],
    ['I put a lot of effort into it and I am crossing my fingers.'],
    ['I had a little doll like this and it always made me feel better.'],
    ['I was out walking when I came across this cool rainbow sidewalk for Pride Month.'],
    ['I am feeling inspired by autumn so I am planning a few.'],
    // Small talk: nothing a reader could act on or ask about.
    ['I will not let anything get me down.'],
    ["I won't let anything get me down."],
    ["I've been busy painting - here's something I finished yesterday."],
    ['I also get help from people who support me.'],
    // What another turn named: "something similar", "the project"; a memory brought up, undated.
    ['I loved doing something similar with my siblings when I was young.'],
    ['My passion for the project and belief in its success are driving me.'],
    ['I was actually just remembering spending the day with my fam volunteering at a homeless shelter.'],
    // An acknowledgement of what the other person said, and a remark that is not about the speaker.
    ["Wow, Gina! I see, so that's the key to making a difference."],
    ["I get it - that's how it goes."],
    // A feeling that names nothing it is about: a reaction in the talk.
    ['I felt so accepted and happy, just being around people who accepted and celebrated me.'],
    ["I'm excited to see where pottery takes me."],
    ["I'm feeling hopeful and inspired about the future!"],
    ['I was so excited when that happened - it gave me chills!'],
  ])('%s', async (text) => {
    expect(await claimsOf(text)).toEqual([]);
  });

  it.each([
    ['I will go with the first option, Flight HAT136 & HAT039.'],
    ["I don't remember the reservation ID."],
    ['I would also like to cancel another reservation with the ID NQNU5R.'],
    ['I appreciate you trying to help, but I really need some form of resolution here.'],
    ['The additional cost is beyond my budget.'],
    // A preference naming what it prefers only by pointing back is a choice in this dialogue.
    ['I prefer flights within that time frame.'],
    ['I prefer to use a gift card for the payment instead.'],
    // How to pay is a choice for this booking, unless it is said to always hold.
    ['I prefer to use only one certificate, ideally the larger one, and pay the rest with my 7447 card.'],
    ['As for the reason, I have had a change in plans and will not be needing these flights anymore.'],
    // A remark about the dialogue, and the id it repeats is already known.
    ['My user ID is already provided, aarav_ahmed_6699.'],
    // The customer's situation told to explain this request.
    ['I am currently facing some financial issues.'],
    // A preference for this booking: put as a wish, beside a request, or for the best on offer.
    [
      "I would like to change the flight to the day after the original reservation, and I'd prefer the cheapest economy option available.",
    ],
    ["I'd prefer a flight that departs after 8 am."],
    ['I would prefer an aisle and a middle seat that are next to each other.'],
    ['I prefer the cheapest fare.'],
    // An acknowledgement to an agent opens a reply in the task.
    ["I understand, but I've been really unhappy with the service I received."],
  ])('to an agent: %s', async (text) => {
    expect(await claimsOf(text, true)).toEqual([]);
  });
});

describe('messages that leave notes, and their claims', () => {
  it.each<[string, string[]]>([
    [
      'Gina, my online clothing store has been a roller coaster but rewarding.',
      ["Jon's online clothing store has been a roller coaster but rewarding."],
    ],
    [
      'Had a wild week, my car broke down last Fri on my way to work.',
      ["Jon's car broke down on 5 May 2023 on Jon's way to work."],
    ],
    ['Since we last spoke, I took my kids to a park yesterday.', ["Jon took Jon's kids to a park on 7 May 2023."]],
    // One statement per note: two topics in one message are two notes, the reply between them none.
    [
      'I started a dance studio in April 2023. Thanks so much for asking! I also adopted a puppy named Max.',
      ['Jon started a dance studio in April 2023.', 'On or before 8 May 2023, Jon also adopted a puppy named Max.'],
    ],
    ['I wanna open a second studio in Boston next year.', ['Jon wants to open a second studio in Boston in 2024.']],
    ["I really don't want to give up dancing.", ['Jon really does not want to give up dancing.']],
    ['I love painting landscapes.', ['Jon loves painting landscapes.']],
    // A closing "btw" is talk, not part of the statement.
    [
      'I have developed a video presentation to teach how to style my fashion pieces, btw.',
      ["Jon has developed a video presentation to teach how to style Jon's fashion pieces."],
    ],
    // An event told with "just" happened the day it was said.
    [
      'I just started helping out with a food drive for folks who lost their jobs.',
      ['Jon started helping out with a food drive for folks who lost their jobs on 8 May 2023.'],
    ],
    // The day of "just" goes with its own clause, and a "recently" beside it says the same.
    [
      "My cousin just had a tough time recently, so I'm lending a hand in helping her find a new place.",
      ["Jon's cousin had a tough time on 8 May 2023, so Jon is lending a hand in helping her find a new place."],
    ],
    // A comma in a list ends no clause.
    [
      'I recently visited Paris, Rome, and Berlin with my sister.',
      ["Jon visited Paris, Rome, and Berlin with Jon's sister shortly before 8 May 2023."],
    ],
    // "Recently" names no day, but it was said on one.
    [
      'Recently, I had a not-so-great experience on a hike.',
      ['Shortly before 8 May 2023, Jon had a not-so-great experience on a hike.'],
    ],
    [
      'I recently went to a pottery class with my kids.',
      ["Jon went to a pottery class with Jon's kids shortly before 8 May 2023."],
    ],
    // A project that the sentence names is named.
    [
      'I finished the project for my pottery class in April 2023.',
      ["Jon finished the project for Jon's pottery class in April 2023."],
    ],
    // Small talk excluded, a plain statement with generic words and a named thing kept.
    [
      'I had a great time at the pride parade with my kids.',
      ["Jon had a great time at the pride parade with Jon's kids."],
    ],
    // What follows an acknowledgement is judged on its own.
    [
      'I see, I started volunteering at the animal shelter in May 2022.',
      ['Jon started volunteering at the animal shelter in May 2022.'],
    ],
    ['I see my therapist every Tuesday.', ["Jon sees Jon's therapist every Tuesday."]],
    // The day of "recently" goes with the event, and a rating spliced on after it goes.
    ['I made some peach cobbler recently, it was great.', ['Jon made some peach cobbler shortly before 8 May 2023.']],
    [
      'I got some leads at the trade fair in April 2023, so that was awesome.',
      ['Jon got some leads at the trade fair in April 2023.'],
    ],
    [
      'I finished a script recently, so now I am sending it to producers.',
      ['Jon finished a script shortly before 8 May 2023, so now Jon is sending it to producers.'],
    ],
    [
      'I ran a charity race for mental health last Saturday – it was really rewarding.',
      ['Jon ran a charity race for mental health on 6 May 2023.'],
    ],
    // A past event told right after the sentence that named its time takes that time, also when
    // that sentence names nothing of its own ("something new") and is no note.
    [
      'Last weekend I did something new that had an impact on me. I participated in a 5K charity run for a homeless shelter.',
      ['Jon participated in a 5K charity run for a homeless shelter on the weekend of 6 May 2023.'],
    ],
    [
      'Yesterday, I went to a fair to show off my studio. I got some possible leads, so that was awesome.',
      ["On 7 May 2023, Jon went to a fair to show off Jon's studio.", 'Jon got some possible leads on 7 May 2023.'],
    ],
    // A time still to come is not when something already done happened.
    [
      'I am going to a pottery workshop next week. I bought a new pottery wheel.',
      [
        'Jon is going to a pottery workshop in the week of 15 May 2023.',
        'On or before 8 May 2023, Jon bought a new pottery wheel.',
      ],
    ],
    // A past event told with no time of its own happened on or before the day it was told;
    // a past state, a habit or a time of life is not bounded by that day.
    [
      'I lost my job at the engineering company.',
      ["On or before 8 May 2023, Jon lost Jon's job at the engineering company."],
    ],
    [
      'I finally found a place with great natural light!',
      ['On or before 8 May 2023, Jon finally found a place with great natural light!'],
    ],
    ['I loved "Becoming Nicole" by Amy Ellis Nutt.', ['Jon loved "Becoming Nicole" by Amy Ellis Nutt.']],
    ['I always walked my dog along the river.', ["Jon always walked Jon's dog along the river."]],
    ['I visited my grandparents in Ohio every summer.', ["Jon visited Jon's grandparents in Ohio every summer."]],
    ['I took piano lessons as a kid with my sister.', ["Jon took piano lessons as a kid with Jon's sister."]],
    // Beside a day the sentence names, "recently" says less than the day and goes.
    [
      'I recently flew from Chicago to Philadelphia on May 2.',
      ['Jon flew from Chicago to Philadelphia on 2 May 2023.'],
    ],
    ['Recently, I went to a pottery class on May 2.', ['Jon went to a pottery class on 2 May 2023.']],
    // "Currently": the state holds as of the day it was said.
    [
      'I am currently reading "The Lean Startup" and hoping it will give me tips for my biz.',
      ['As of 8 May 2023, Jon is reading "The Lean Startup" and hoping it will give Jon tips for Jon\'s biz.'],
    ],
    // What is going on when it is said holds as of that day; what something is like does not need one.
    [
      "I'm expanding my dance studio's social media presence.",
      ["As of 8 May 2023, Jon is expanding Jon's dance studio's social media presence."],
    ],
    [
      "I'm putting in a lot of work on my business even with the obstacles.",
      ["As of 8 May 2023, Jon is putting in a lot of work on Jon's business even with the obstacles."],
    ],
    [
      'I have just been practicing for my next video game tournament.',
      ["As of 8 May 2023, Jon has just been practicing for Jon's next video game tournament."],
    ],
    [
      "My family's small, but I love spending time with my friends.",
      ["Jon's family's small, but Jon loves spending time with Jon's friends."],
    ],
    [
      'My business is growing fast and I am hiring.',
      ["As of 8 May 2023, Jon's business is growing fast and Jon is hiring."],
    ],
    // A feeling about something named is a statement.
    [
      "I'm excited about my pottery class on 12 May 2023.",
      ["Jon is excited about Jon's pottery class on 12 May 2023."],
    ],
    [
      'I felt so proud giving my talk at the school board.',
      ["Jon felt so proud giving Jon's talk at the school board."],
    ],
  ])('%s', async (text, claims) => {
    expect(await claimsOf(text)).toEqual(claims);
  });

  it.each<[string, string[]]>([
    ['I prefer aisle seats.', ['customer-7 prefers aisle seats.']],
    ['I want reports as a table, not prose.', ['customer-7 prefers reports as a table over prose.']],
    ['I always fly economy.', ['customer-7 always flies economy.']],
    ['I never check bags when I fly.', ['customer-7 never checks bags when customer-7 flies.']],
    ['I always prefer the cheapest economy option.', ['customer-7 always prefers the cheapest economy option.']],
  ])('to an agent, a standing preference: %s', async (text, claims) => {
    expect(await claimsOf(text, true)).toEqual(claims);
  });

  it('to an agent: a preference given in an exchange about this booking is a choice, not a standing preference', async () => {
    const cabin = 'Which cabin class would you like: basic economy, economy, or business?';
    // The answer to the agent's question about what is preferred.
    expect(await claimsOf('I prefer economy class.', true, cabin)).toEqual([]);
    // A question about something else leaves a preference the customer volunteers standing.
    expect(await claimsOf('I prefer aisle seats.', true, cabin)).toEqual(['customer-7 prefers aisle seats.']);
    // One the same message asks the agent to act on, and one that holds on a condition.
    expect(
      await claimsOf(
        'I prefer flights that depart after 8am and before 9pm. Could you check again for options within that timeframe?',
        true,
      ),
    ).toEqual([]);
    expect(await claimsOf("I prefer basic economy if it's cheaper.", true)).toEqual([]);
  });

  it("to an agent: the customer's id is kept, the reason for this cancellation is not", async () => {
    expect(
      await claimsOf('My user ID is mia_kim_4397, and the reason for cancellation is a change of plan.', true),
    ).toEqual(["customer-7's user ID is mia_kim_4397."]);
  });

  it('to an agent: a way to pay said to always hold is a preference', async () => {
    expect(await claimsOf('I always want to pay with my gift card, not my credit card.', true)).toEqual([
      "customer-7 always wants to pay with customer-7's gift card, not customer-7's credit card.",
    ]);
  });

  it('to an agent: who the customer is, and nothing of the rest of the reply', async () => {
    expect(await claimsOf('My user ID is omar_davis_3817, but I am not sure about the reservation IDs.', true)).toEqual(
      ["customer-7's user ID is omar_davis_3817."],
    );
    expect(await claimsOf('I prefer flights that depart after 8 am and before 9 pm.', true)).toEqual([
      'customer-7 prefers flights that depart after 8 am and before 9 pm.',
    ]);
  });

  it("a statement told to an agent is the customer's, not one session's: the same fact from two sessions is one slot", async () => {
    const inSession = (session: string): Partial<RawRecordInput> => ({
      sessionId: session,
      taskId: session,
      taskType: 'airline',
    });
    const agentTurn = (session: string, minute: number): RawRecordInput => ({
      ...message('customer-7', 'How can I help?', minute, inSession(session)),
      kind: 'agent_message',
      source: 'agent',
    });
    const told = (session: string, minute: number) =>
      message('customer-7', 'Sure, my user ID is mia_li_3668.', minute, inSession(session));
    const rs = archived([agentTurn('trial-0', 0), told('trial-0', 1), agentTurn('trial-1', 2), told('trial-1', 3)]);
    const episodes = toEpisodes(rs);
    const { proposals } = await createDeterministicEngine().propose({
      episodes,
      findings: episodes.flatMap((e) => attributeEpisode(e)),
      activeNotes: [],
      now: new Date('2023-06-01T00:00:00Z'),
    });
    const facts = proposals.filter((p) => p.content.kind === 'fact');
    expect(facts.map((p) => p.content.scope)).toEqual([
      { level: 'user', key: 'customer-7' },
      { level: 'user', key: 'customer-7' },
    ]);
    let next = 0;
    const ops = reconcile(facts, [], () => `N${++next}`);
    expect(ops.filter((o) => o.op === 'create')).toHaveLength(1);
  });

  it('a restatement in other words in the same conversation adds no note', async () => {
    const rs = archived([
      message('customer-14', 'My user ID is chen_lee_6825, and the reservation ID is YAX4DR.', 0),
      message('customer-14', 'My reservation ID is YAX4DR, and the user ID is chen_lee_6825.', 1),
    ]);
    const episodes = toEpisodes(rs);
    const findings = episodes.flatMap((e) => attributeEpisode(e));
    expect(findings.filter((f) => f.type === 'stated_fact').map((f) => f.summary)).toEqual([
      'My user ID is chen_lee_6825, and the reservation ID is YAX4DR.',
    ]);
  });
});
