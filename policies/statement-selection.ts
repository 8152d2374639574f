import { findTimeMentions } from './dates.ts';
import { absoluteTimes } from './statements.ts';
import { isStopword } from './text.ts';

/**
 * Which sentences of what people say become a note, and how a sentence is cleaned first. A note
 * is a statement about its speaker that still means something to a reader who never saw the
 * exchange: the speaker is the subject, what it says is named in it (no "it", "them", "that"
 * pointing back at an earlier turn), it is not a move in the conversation (a thanks, a "me too",
 * a reply about the other person) and its time can be made absolute. Told to an agent, a choice,
 * a wish or an intent for the task at hand is part of that task's dialogue, not a fact to keep.
 */

export type Rejection =
  /** The subject is not the speaker: "It was rich and creamy", "Here's a pic from …". */
  | 'not_about_speaker'
  /** "We" leaves open who is meant. */
  | 'we_hides_who'
  /** What it is about is only named in an earlier turn: "I see them once a week". */
  | 'no_referent'
  /** A reply about the person addressed: "I'm so proud of you". */
  | 'about_listener'
  /** A reaction or a move in the conversation: "I'm definitely in", "I appreciate …". */
  | 'exchange'
  /** Told to an agent: a choice, wish, intent, or a lapse of memory for this task. */
  | 'dialogue_move'
  /** A time word that cannot be made absolute ("a few days ago"). */
  | 'relative_time'
  /** Nothing a reader could act on or ask about: "I will not let anything get me down". */
  | 'small_talk';

export interface SentenceContext {
  /** Whether an agent takes part (a customer with an assistant) rather than people among themselves. */
  withAgent: boolean;
  /** The person addressed, when it is a person: a leading or trailing form of address is dropped. */
  listener?: string;
  /** When the sentence was said, to make its time words absolute. */
  observedAt: string;
}

export type Selection = { kept: true; text: string } | { kept: false; reason: Rejection };

/** A bracketed stage direction ("[shares a photo: …]") is not something anyone said. */
const STAGE_DIRECTION = /\s*\[[^\]]*\]/g;
/** Words that join a sentence to the one before it and say nothing themselves. */
const CONNECTIVE =
  /^(?:and|but|so|plus|also|anyway|anyways|besides that|other than that|by the way|btw|then|oh and|and yeah|still)\b[,:]?\s*/i;
/**
 * "I see, so that's the key …", "I get it - …", "I know, right, …": an acknowledgement of what the
 * other person just said is a move in the conversation, not a statement about the speaker. It
 * is dropped like an interjection and what follows is judged on its own (among people; to an agent
 * the acknowledgement opens a reply in the task). Only an acknowledgement closed by punctuation: "I see my therapist weekly" and "I know French" say something.
 */
const ACKNOWLEDGEMENT =
  /^I (?:see|get it|get that|got it|understand|know|hear you|feel you|agree|guess so|suppose so|see what you mean|know what you mean|totally get it)(?:,?\s*right)?\s*[,;:.!\u2013\u2014-]+\s*/i;
/** "…, btw." at the end of a sentence joins it to the talk, like a connective in front. */
const TRAILING_CONNECTIVE = /,?\s+(?:btw|by the way|anyway|anyways)(?=[.!]*$)/i;
/** The speaker as the subject of a clause: "I", its contractions, "my …", "me and …", "we". */
const SUBJECT =
  /(?:^|[,;:]\s+|\s[-–—]\s+)(I|I'm|I've|I'd|I'll|My|my|Me and|me and|We|we|We're|we're|We've|we've)(?=\s)/;
/** Openers that say when, where or how: kept in front of the statement. */
const ADVERBIAL =
  /^(?:after|before|since|during|when|while|last|this|next|yesterday|today|tonight|recently|lately|earlier|later|on|in|at|for|over|back|a few|a couple|the other|finally|eventually|currently|now|sometimes|usually|besides|apart from|aside from|luckily|thankfully|sadly|unfortunately|honestly|fortunately|once|as|growing up|ever since|every|each|all)\b/i;
/** Openers longer than this many words are not a lead-in but a statement of their own. @default 8 */
export const OPENER_MAX_WORDS = 8;

/** A lead-in about the conversation itself ("since my last chat"): relative to it, so dropped. */
const CONVERSATION = /\b(chat|chatted|talk|talked|spoke|spoken|caught up|catch up|last time)\b/i;
const WE = /\b(we|we're|we've|we'd|we'll|us|our|ours|ourselves)\b/i;
const LISTENER = /\b(you|you're|you've|you'd|you'll|your|yours|yourself|ya|u)\b/i;
/** Words that point back at something said before: as an object they leave the statement empty. */
const ANAPHORA = new Set('it them this that these those there him her he she they one so such'.split(' '));
/** Objects that name nothing at all: "I did something new", "I've been stumped about something". */
const INDEFINITE = new Set(['something', 'anything']);
const namesNothing = (word: string | undefined): boolean =>
  word !== undefined && (ANAPHORA.has(word) || INDEFINITE.has(word));
const SKIPPED = new Set(
  (
    'really just also always never still so very totally definitely actually truly absolutely even ' +
    'am is was were have has had will would do does did can could might may should must been being not ever finally already'
  ).split(' '),
);
const CLAUSE_VERBS =
  /^(think|thought|know|knew|feel|felt|believe|believed|realize|realized|learn|learned|learnt|found|find|said|say|hope|hoped|noticed|decided|heard|read|discovered)$/;
const PARTICLES = new Set('to in at for with about on from into of by over'.split(' '));

/**
 * Reactions and conversational moves, matched on what follows the subject with contractions
 * expanded ("I'm" → "am") and intensifiers dropped.
 */
const EXCHANGE = new RegExp(
  '^(?:' +
    [
      'appreciate',
      'thank',
      'agree',
      'bet',
      'guess',
      'suppose',
      'understand',
      'mean\\b',
      'wish',
      'admire',
      'miss',
      'hear',
      'feel (?:the same|so|you)',
      'know (?:what|how|right|that feeling|the feeling|exactly)',
      'think so',
      'get (?:how|it|that|what|you)',
      'hope (?!to\\b)',
      // "I was just remembering …": a memory brought up in the talk, the event undated.
      'was (?:remembering|reminiscing|reminded)',
      // "I've got a question about the probate timeline": a question announced, not a fact.
      'have (?:got )?(?:(?:another|one more|some|few) )?(?:quick |small |follow-up )?questions?\\b',
      "can(?:not|'t)? (?:imagine|picture|tell|see|relate|believe|wait)",
      'cannot wait',
      // "I'm always down to give recommendations", "I'm tempted to try …": an offer or a reaction in reply.
      'am always (?:down|up for|happy|glad|here|ready)',
      'am (?:so |really )?tempted',
      'am (?:not )?(?:sorry|glad|happy (?:for|to hear|to help|that)|proud of|impressed|in\\b|down\\b|up for|game|okay|ok\\b|fine with|all for|sure|afraid|excited for|thrilled for|jealous|curious|looking forward|here for|here to (?:help|listen|lend|support|talk|chat)\\b|on it|with|grateful|thankful|touched|honored|flattered|lucky to have)',
      'would (?:love|like) to (?:see|hear|know|try|join|check|meet|come)',
      'will (?:let|keep|send|check|think|try|see|talk|get back|do that|look into|take a look|definitely)',
      '(?:love|like|enjoy) (?:it|that|this|them|these|those|how|what|the way|the idea|the sound|the look|the colou?rs?|the texture|the pic|the photo|the picture|the vibe|the name|the story)\\b',
      // "I love the self-acceptance and love theme": what the other person just showed.
      '(?:love|like|enjoy|adore) (?:the|that|this|these|those) (?:[\\w-]+ (?:and )?){0,4}(?:theme|idea|message|design|details?|vibes?|look|colou?rs?|pics?|photos?|pictures?|shots?|sound|name|story|quote|painting|drawing)\\b',
    ].join('|') +
    ')',
  'i',
);

/** Words for how someone feels: "happy", "so accepted", "excited". */
const EMOTION =
  'happy|glad|excited|thrilled|stoked|pumped|delighted|overjoyed|ecstatic|proud|grateful|thankful|blessed|' +
  'accepted|loved|supported|welcomed|included|valued|appreciated|seen|heard|understood|inspired|motivated|' +
  'energized|empowered|encouraged|hopeful|optimistic|confident|relieved|calm|relaxed|peaceful|content|' +
  'fulfilled|satisfied|alive|amazing|great|good|awesome|fantastic|wonderful|nervous|anxious|scared|' +
  'worried|stressed|overwhelmed|sad|upset|frustrated|disappointed|lonely|exhausted|emotional|touched|humbled|honored';
const DEGREE = '(?:(?:super|so|really|very|extremely|incredibly|truly|kinda|pretty|quite|totally|a bit|a little)\\s+)*';
/** A feeling and what follows it: "felt accepted and happy, being around people who …". */
const FEELING = new RegExp(
  `^(?:feel|felt|am|was|were|have been|had been|got|get|am feeling|was feeling|have been feeling)\\s+${DEGREE}(?:${EMOTION})` +
    `(?:(?:\\s*,\\s*|\\s+(?:and|but|or|yet)\\s+)${DEGREE}(?:${EMOTION}))*\\b(.*)$`,
  'i',
);
/**
 * What may follow a feeling without naming what it is about: nothing, a comment after a comma or
 * a dash, a wait-and-see ("to see where pottery takes me"), the future or life in general, or
 * "when that happened".
 */
const NAMES_NOTHING =
  /^(?:\s*[.!]*$|\s*[,;:\u2013\u2014-]|\s+to (?:see|find out|hear|know|learn|watch|discover) (?:where|what|how|if|whether|who|when)\b|\s+(?:about|for|with) (?:the future|life|everything|it all|what(?:'s| is) next|what comes next|things)\b|\s+when (?:it|that|this|they)\b)/i;

/**
 * "I felt so accepted and happy, just being around people who …", "I'm excited to see where
 * pottery takes me": a feeling whose object is not named in the clause is a reaction in the
 * talk, with nothing a reader could act on. A feeling about something named ("I'm excited about
 * my pottery class on 12 May 2023", "I felt powerful giving my talk") is a statement.
 */
function bareFeeling(predicate: string): boolean {
  const m = FEELING.exec(predicate);
  return m !== null && NAMES_NOTHING.test(m[1] as string);
}

/** To an agent: why this booking changes ("the reason is a change of plan") belongs to that task. */
const TASK_REASON = /^(?:as for the reason\b|the reason\b)|\b(?:and|,) the reason (?:for \w+ )?is\b/i;

/** To an agent: a choice, a wish, an intent or what the customer does not know, all about this task. */
const DIALOGUE_MOVE =
  /^(?:will|would|can|could|should|must|might|may|shall|want|need|wish|wonder|hope|think|thought|believe|guess|expect|expected|remember|recall|know|forgot|forget|understand|see|mean|prefer|plan|do not|did not|does not|don't|didn't|doesn't|can't|cannot|won't|have to|got to|gotta|(?:am|was|were) (?:\w+ing\b|sorry|okay|ok\b|fine|afraid|not|sure|certain|happy|glad|willing|ready|interested|unable|able|open|eager|insistent|upset|frustrated|angry|disappointed|annoyed|worried|concerned|confused|stressed|hoping|stuck|unsure|uncertain|undecided|torn))/i;

/**
 * To an agent: what the customer read, heard or was told somewhere ("I read on the website that
 * change fees are covered"): a claim brought into this task for the agent to check, not a fact.
 */
const HEARSAY = /^(?:have |had )?(?:read|heard|seen|saw)\b.*\bthat\b|^(?:was|were|have been|had been) told\b/i;

const INTENSIFIER =
  /^(really|just|also|so|totally|definitely|actually|truly|absolutely|very|still|only|even|quite|pretty|kinda|a|bit|currently)$/i;
/** A promise or a leave-taking ("I'm off to bake some cakes"): a plan only when it says when. */
const FUTURE = /^(?:will|am (?:going to|gonna|off to)|would)\b/i;
const CONTRACTIONS: Record<string, string> = { "i'm": 'am', "i've": 'have', "i'd": 'would', "i'll": 'will' };

/** The sentence cleaned and judged: kept with its cleaned text, or why not. */
export function selectStatement(sentence: string, ctx: SentenceContext): Selection {
  const said = sentence.replace(STAGE_DIRECTION, '').trim();
  // To an agent, "I understand, but …" answers the agent's last move: the whole reply is the task's.
  const spoken = withoutVerdict(withoutAddress(ctx.withAgent ? said : withoutAcknowledgement(said), ctx.listener));
  if (spoken.length === 0) return rejected('exchange');
  const cleaned = ctx.withAgent ? withoutTaskReason(spoken) : spoken;
  if (cleaned === undefined) return rejected('dialogue_move');
  const found = speakerClause(cleaned);
  if (!found) return rejected('not_about_speaker');
  const { opener } = found;
  // "Since I was 17 or so.": the answer to a question about something else, with no clause of its own.
  if (subordinateOnly(opener, found.clause)) return rejected('no_referent');
  // The clause starts at its subject, so a question joined to it by a comma leaves a head.
  const shown = beforeCode(found.clause);
  const clause = statementBeforeQuestion(shown) ?? shown;
  // "I've got the following code so far:": what it is about is shown after it, not named.
  if (/:\s*$/.test(clause)) return rejected('no_referent');
  const statement = `${opener}${clause}`;
  if (WE.test(statement)) return rejected('we_hides_who');
  if (orphanThem(statement)) return rejected('no_referent');
  if (LISTENER.test(statement)) return rejected('about_listener');
  const all = clausesOf(clause).map((c) => judgeClause(c, ctx));
  // Told to an agent, "I'm trying to plan my reading, and I've raised my goal to 12 books": the
  // move opens the sentence and the statement follows it, judged on its own.
  const skipped = ctx.withAgent ? leadingMoves(all) : 0;
  const judged = all.slice(skipped);
  const first = judged[0];
  if (!first) return rejected('dialogue_move');
  if (!first.ok) return rejected(first.reason);
  // "My user ID is X, but I'm not sure about …": the statement ends where a clause fails.
  const cut = judged.findIndex((j) => !j.ok);
  const kept = (cut < 0 ? judged : judged.slice(0, cut)).map((j) => (j.ok ? j.text : '')).join('');
  const text =
    skipped === 0
      ? `${opener}${kept.replace(/[,;:\s]+$/, '')}`
      : kept.replace(CLAUSE_JOIN, '').replace(/[,;:\s]+$/, '');
  if (RELATIVE_LEFT.test(absoluteTimes(text, ctx.observedAt).text)) return rejected('relative_time');
  return { kept: true, text: capitalize(/[.!?]$/.test(text) ? text : `${text}.`) };
}

type Judged = { ok: true; text: string } | { ok: false; reason: Rejection };

/** How many clauses in front are moves in the dialogue. */
function leadingMoves(judged: readonly Judged[]): number {
  const at = judged.findIndex((j) => j.ok || j.reason !== 'dialogue_move');
  return at < 0 ? judged.length : at;
}

/**
 * A question joined to a statement by a comma, often typed without its question mark: "I've added
 * 52 sources to my Zotero library, how can I organize them", "…, so should I give it a shot",
 * "…, and now I'm thinking, should I pilot AI …". It opens with a question word and an auxiliary
 * before its subject, or with the auxiliary itself; a relative clause ("…, which has improved
 * speed", "…, when I have time", "…, who is my best friend") puts no auxiliary before a pronoun
 * and stays.
 */
const EMBEDDED_QUESTION = new RegExp(
  String.raw`\s*(?:[,;:]|\s[-–—])\s*(?:(?:so|and|but|or)\s+)?(?:(?:now\s+)?I(?:'m| am) (?:thinking|wondering),?\s+)?` +
    String.raw`(?:(?:how|what|why|where|when)(?:\s+(?!(?:I|you|we|it|they|he|she)\b)\w+)?\s+)?` +
    String.raw`(?:do|does|did|can|could|should|would|will|shall|is|are|was|were|am|have|has|might|may)\s+` +
    String.raw`(?:I|you|we|it|they|he|she|there|this|that)\b`,
  'i',
);

/** The clause up to a code block in it: code is material shown to the listener, not a statement. */
const beforeCode = (clause: string): string => clause.split('```')[0]?.trimEnd() ?? clause;

/**
 * The statement a question is joined to ("My library has 45 sources, how can I tag them?" → "My
 * library has 45 sources"), or undefined when no question is joined to one.
 */
export function statementBeforeQuestion(sentence: string): string | undefined {
  const at = EMBEDDED_QUESTION.exec(sentence)?.index;
  return at === undefined || at === 0 ? undefined : sentence.slice(0, at).replace(/[,;:\s]+$/, '');
}

function judgeClause(clause: string, ctx: SentenceContext): Judged {
  const body = clause.replace(CLAUSE_JOIN, '');
  const subject = /^(\S+)/.exec(body)?.[1]?.toLowerCase() ?? '';
  if (subject === 'i' || subject in CONTRACTIONS) {
    const predicate = predicateOf(body);
    if (EXCHANGE.test(predicate) || bareFeeling(predicate)) return { ok: false, reason: 'exchange' };
    if (ctx.withAgent && (DIALOGUE_MOVE.test(predicate) || HEARSAY.test(predicate)))
      return { ok: false, reason: 'dialogue_move' };
    if (pointsBack(predicate)) return { ok: false, reason: 'no_referent' };
    // "I'll keep going", "I'm gonna reach out": a promise in reply; a plan says when.
    if (FUTURE.test(predicate) && findTimeMentions(body, ctx.observedAt).length === 0)
      return { ok: false, reason: 'exchange' };
  }
  if (
    pronounFirst(body) ||
    PREPOSITION_POINTER.test(body) ||
    SHOWN.test(body) ||
    UNNAMED.test(body) ||
    BARE_QUANTITY.test(body) ||
    ELLIPSIS.test(body.trim())
  )
    return { ok: false, reason: 'no_referent' };
  if (REMARK.test(body)) return { ok: false, reason: 'exchange' };
  if (saysNothing(body)) return { ok: false, reason: 'small_talk' };
  return { ok: true, text: clause };
}

/**
 * "chatted with my family about it", "puts a lot of effort into it", "a little doll like this":
 * after a preposition at the end of a clause, "it" or "this" stands for what an earlier turn or a
 * photo named, whatever nouns came before it in the clause.
 */
const PREPOSITION_POINTER =
  /\b(?:about|into|of|with|for|on|at|from|over|through|behind|without)\s+(?:it|this|that|them)(?=\s*(?:[,.!?;:]|$|\s(?:and|or|but|so|too|lately|now|anymore|again|yet)\b))|\blike (?:this|that|these|those)\b/i;
/**
 * "came across this cool rainbow sidewalk": "this" before a thing, not a time, points at what was
 * shown; so does "here's something I finished".
 */
const SHOWN =
  /\bhere(?:'s|’s| is| are)\b|\bthis\s+(?!(?:week|weekend|month|year|morning|afternoon|evening|night|summer|winter|spring|fall|autumn|season|time|past|coming|is|was|has|had|will)\b)[a-z]/i;
/** "something similar"; "the project" or "the plan" that no following words name: named in another turn. */
const UNNAMED =
  /\bsomething (?:similar|like (?:that|this|it))\b|\bthe (?:project|plan|idea)\b(?!\s+(?:of|called|named|for|to|about|with|on)\b)/i;
/** "planning a few.": a quantity whose thing was named in another turn. */
const BARE_QUANTITY =
  /\b(?:a few|a couple|several|some|a bunch|plenty|so much|so many|a lot|a ton)(?=\s*(?:[,.!?;:]|$))/i;
/** "… and others don't": a clause that only repeats an auxiliary leaves its verb in another clause. */
const ELLIPSIS =
  /(?:^|\b(?:and|but|while|whereas)\s+)(?:\w+\s+)?(?:do|does|did|don't|doesn't|didn't|can|can't|cannot|will|won't|would|wouldn't|have|haven't|has|hasn't|is|isn't|are|aren't|was|wasn't)(?:\s+(?:not|too|either))?\s*[.!?]*$/i;
/** "my user ID is already provided", "as I said", "if that helps": a remark about the conversation itself. */
const REMARK =
  /\b(?:already (?:provided|given|mentioned|told you|said|shared|sent)|as (?:I )?(?:mentioned|said|stated|told you)(?: before| earlier)?|if (?:that|this|it) helps)\b/i;

/**
 * Words that carry no information of their own in a statement about someone: "Jon will not let
 * anything get Jon down", "Gina gets help from people who support Gina". A statement that is
 * only these (after the text tokenizer's stopwords) is small talk.
 */
const GENERIC = new Set(
  (
    'let lets get gets got getting gotten anything everything nothing something anyone everyone someone ' +
    'somebody anybody people folks help helps helped support supports supported stuff thing things down up ' +
    'keep keeps kept going go goes went way ways lot lots much many great good nice fine well okay ok time times ' +
    'also always really just am doing done do does make makes made feel feels felt like likes love loves ' +
    'want wants need needs sure pretty super happy glad day days life ' +
    "won't can't don't didn't doesn't isn't wasn't aren't"
  ).split(' '),
);

function saysNothing(clause: string): boolean {
  const words = predicateOf(clause.replace(CLAUSE_JOIN, ''))
    .toLowerCase()
    .split(/[^a-z0-9'_-]+/)
    .filter((w) => w.length > 2 && !SKIPPED.has(w) && !isStopword(w));
  return words.length > 0 && words.every((w) => GENERIC.has(w));
}

/** A clause of the speaker's own opens with a joining word and "I": ", but I …", " and I …", "; I …". */
const CLAUSE_JOIN = /^[,;]?\s*(?:(?:but|and|so|because|though|although|as|since)\s+)?/i;
const CLAUSE_START = /(?=(?:[,;]\s*|\s)(?:(?:but|and|so|because|though|although)\s+)?(?:I|I'm|I've|I'd|I'll)\s)/;

/** The speaker's clause split where another clause of the speaker's starts. */
function clausesOf(clause: string): string[] {
  const parts = clause.split(CLAUSE_START).filter((p) => p.length > 0);
  // A bare " I" inside a clause ("than I expected") is no new clause: only a joined one is.
  const out: string[] = [];
  for (const p of parts) {
    if (out.length > 0 && !/^(?:[,;]|\s+(?:but|and|so|because|though|although)\s)/i.test(p)) out[out.length - 1] += p;
    else out.push(p);
  }
  return out;
}

/**
 * "… is going to check it out", "loves having them around": "it" or "them" before anything it
 * could stand for has been named in the clause.
 */
function pronounFirst(clause: string): boolean {
  const m = POINTER.exec(clause);
  if (!m) return false;
  const before = clause.slice(0, m.index);
  return !NAMED.test(before);
}
/**
 * "it", "them", … or a demonstrative standing alone ("chat about this and …"), not "this book";
 * a demonstrative before a word that names nothing by itself ("that feeling", "the situation").
 */
const POINTER =
  /\b(?:it|it's|them|its|him|he|she|they|his|her|their)\b|\b(?:this|that|these|those)(?=\s*(?:[,.!?;]|$|\s(?:and|or|but|so|because|too)\b))|\b(?:this|that|these|those|the same)\s+(?:feelings?|moments?|situations?|stuff|things?|experiences?|kinds?|sorts?)\b|\bthe (?:situation|details)\b|\b(?:this|that|these|those) same\b/i;
/** Something named: a determiner with its noun, a capitalised name, a number. */
const NAMED =
  /\b(?:a|an|the|my|our|his|her|their|some|any|every|each|another|this|that|these|those|one|two|three|few|many|several)\s+\w|\b[A-Z][a-z]+|\d/;

const rejected = (reason: Rejection): Selection => ({ kept: false, reason });

/** Relative time words still there once the known ones are made absolute. */
const RELATIVE_LEFT =
  /\b(?:today|tonight|yesterday|tomorrow|ago|the other (?:day|week|night)|(?:last|next|this|coming) (?:week|month|year|weekend|night|mon|tue|wed|thu|fri|sat|sun)\w*|the (?:next|coming|past|last) (?:few|couple(?: of)?|several) (?:days|weeks|months|years))\b/i;

/** The sentence after a leading acknowledgement ("I see, …"); empty when that is all it says. */
function withoutAcknowledgement(text: string): string {
  const m = ACKNOWLEDGEMENT.exec(text);
  return m ? text.slice(m[0].length).trim() : text;
}

/**
 * "I made some peach cobbler recently, it was great.": a clause spliced on with a comma or a dash
 * that only rates what was just told ("it was great", "- it was really rewarding") says nothing a
 * reader could act on, and a date resolved for the event belongs before it. A rating joined with
 * "and" ("… and it was so powerful") is part of the statement and stays.
 */
const VERDICT = new RegExp(
  "(?:,|;|\\s[-\u2013\u2014])\\s*(?:(?:and|so)\\s+)?(?:it|that|this)(?:'s|\u2019s|\\s+(?:is|was|has been|felt|feels|looks|looked|tasted|tastes))\\s+" +
    '(?:(?:so|really|very|super|pretty|quite|absolutely|totally|truly|just|such|a|an|definitely)\\s+)*' +
    `(?:${[
      'great',
      'good',
      'amazing',
      'awesome',
      'fantastic',
      'wonderful',
      'fun',
      'rewarding',
      'beautiful',
      'incredible',
      'lovely',
      'nice',
      'cool',
      'special',
      'tough',
      'hard',
      'exciting',
      'inspiring',
      'fulfilling',
      'worth it',
      'blast',
      'success',
      'hit',
      'delicious',
      'tasty',
      'perfect',
      'intense',
      'crazy',
      'wild',
      'magical',
      'memorable',
      'unforgettable',
      'emotional',
      'meaningful',
      'eye-opening',
      'humbling',
      'relaxing',
      'peaceful',
      'thought-provoking',
      'a lot of fun',
      'much fun',
    ].join('|')})` +
    '(?:\\s+(?:and|but)\\s+[a-z-]+)?\\s*([.!]*)$',
  'i',
);
const withoutVerdict = (text: string): string => text.replace(VERDICT, '$1');

/** Drops the name of the person addressed at either end ("Jon, my store …", "… so much, Jon!"). */
function withoutAddress(text: string, listener: string | undefined): string {
  let out = text.replace(TRAILING_CONNECTIVE, '');
  while (CONNECTIVE.test(out)) out = out.replace(CONNECTIVE, '');
  if (!listener || !/^[A-Z][a-z]+$/.test(listener)) return out;
  // "Hey Mel," addresses Melanie: a form of address is a name's first letters.
  const name = `(?:${listener}|${listener.slice(0, 3)}[a-z]*)`;
  return out
    .replace(new RegExp(`^(?:(?:hey|hi|hello|oh|yo|dear)\\s+)?${name}\\s*[,!.:-]+\\s*`, 'i'), '')
    .replace(new RegExp(`,\\s*${name}\\s*(?=[.!?]*$)`), '');
}

/**
 * Where the speaker's clause starts and what stands before it. An adverbial lead-in ("Last
 * week, …") stays; another short lead-in ("Had a wild week, …", "Since we last spoke, …") is
 * dropped; a long one is a statement about something else.
 */
function speakerClause(text: string): { opener: string; clause: string } | undefined {
  const m = SUBJECT.exec(text);
  const leadingTime = /^((?:\S+\s+){1,3}?)(?=(?:I|my|I'm|I've|I'd|I'll)\s)/.exec(text);
  if (leadingTime && ADVERBIAL.test(leadingTime[1] as string) && !/[,;:]/.test(leadingTime[1] as string))
    return { opener: leadingTime[1] as string, clause: text.slice((leadingTime[1] as string).length) };
  if (!m) return undefined;
  const start = m.index + m[0].length - (m[1] as string).length;
  const clause = text.slice(start);
  if (start === 0) return { opener: '', clause };
  const opener = text.slice(0, start);
  const words = opener.trim().split(/\s+/).length;
  if (words > OPENER_MAX_WORDS) return undefined;
  const keeps =
    ADVERBIAL.test(opener) &&
    !WE.test(opener) &&
    !LISTENER.test(opener) &&
    !CONVERSATION.test(opener) &&
    /,\s*$/.test(opener);
  return { opener: keeps ? opener : '', clause };
}

/** Nouns of a group that "them" may stand for without a plural ending. */
const GROUP_NOUNS = new Set(
  'people folks children kids men women family fam team group crew class staff community everyone everybody parents'.split(
    ' ',
  ),
);
/** Words in -s that are no plural noun a "them" could stand for. */
const NOT_PLURAL = new Set(
  'this is was has does his its us yes always sometimes perhaps unless across various thus plus besides towards afterwards less'.split(
    ' ',
  ),
);
const pluralNoun = (word: string): boolean =>
  GROUP_NOUNS.has(word) ||
  (word.length > 3 && word.endsWith('s') && !word.endsWith("'s") && !word.endsWith('ss') && !NOT_PLURAL.has(word));

/**
 * "I've thought a lot about how much I need them", "I offered them support": "them" with no plural
 * before it in the statement stands for what another turn named.
 */
function orphanThem(statement: string): boolean {
  const at = /\bthem\b/i.exec(statement)?.index;
  if (at === undefined) return false;
  const before = statement
    .slice(0, at)
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .split(/[^a-z']+/);
  return !before.some(pluralNoun);
}

/** A conjunction that makes the clause after it depend on another. */
const SUBORDINATOR =
  /^(?:since|ever since|when|whenever|while|because|after|before|until|till|once|as|if|though|although)\s*$/i;
/** A clause boundary, or a second subject of the speaker's, after the first word: a main clause follows. */
const MAIN_CLAUSE_AFTER = /[,;:]|\s[-–—]\s|\s(?:I|I'm|I've|I'd|I'll|my)\s/;

/** The speaker's clause is only the subordinate one its opener starts: "Since I was 17 or so." */
function subordinateOnly(opener: string, clause: string): boolean {
  return SUBORDINATOR.test(opener.trim()) && !MAIN_CLAUSE_AFTER.test(clause.replace(/^\S+/, ''));
}

/** What follows the subject, contractions expanded and intensifiers dropped: "I'm so in" → "am in". */
function predicateOf(clause: string): string {
  const [subject = '', ...rest] = clause.replace(/[\u2018\u2019]/g, "'").split(/\s+/);
  const head = CONTRACTIONS[subject.toLowerCase()];
  const words = [...(head ? [head] : []), ...rest].filter((w) => !INTENSIFIER.test(w));
  return words.join(' ').replace(/[.!,;:]+$/, '');
}

/** "see them …", "have had them …", "am into it", "did something new": the object names nothing. */
function pointsBack(predicate: string): boolean {
  const words = predicate
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/[^a-z']/g, ''))
    .filter((w) => w.length > 0 && !SKIPPED.has(w));
  const [verb, next, after] = words;
  if (namesNothing(verb)) return true;
  // "think that …", "learned that …": there "that" opens a clause, it does not point back.
  if (next === 'that' && verb !== undefined && CLAUSE_VERBS.test(verb)) return false;
  if (namesNothing(next)) return true;
  return next !== undefined && PARTICLES.has(next) && namesNothing(after);
}

/** A sentence cut before its task's reason; undefined when the reason is all it says. */
function withoutTaskReason(text: string): string | undefined {
  const m = TASK_REASON.exec(text);
  if (!m) return text;
  const kept = text.slice(0, m.index).replace(/[,;\s]+$/, '');
  return kept.length > 0 ? `${kept}.` : undefined;
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
