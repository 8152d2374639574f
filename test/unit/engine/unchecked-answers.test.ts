import { describe, expect, it } from 'vitest';
import { concludedAnswer, states } from '../../../policies/attribution-answers.ts';
import { lessonsOf, run, type Step } from '../../helpers/agent-runs.ts';
import { toEpisodes } from '../../helpers/episodes.ts';

/** The task as a group chat poses it: the manager's message, first. */
const posed = (question: string): Step => ({
  role: 'Manager',
  text: `You are given a task and a plan from your manager. Task: ${question} Plan: solve it, then verify it.`,
});

describe('the wrong answer a failed multi-agent run ended with, traced to where it came from', () => {
  const cases: Array<{ name: string; steps: Step[]; claim: RegExp; steps_: number[] }> = [
    {
      name: 'an expert’s answer the verifier only agreed with blames the expert’s step',
      steps: [
        posed('Bob guesses coins in three boxes; what is the minimum he can win?'),
        {
          role: 'GameTheory_Expert',
          text: 'Guessing 2, 11 and 17 covers every arrangement. Thus Bob can win at least $30,000.',
        },
        {
          role: 'Verification_Expert',
          text: 'I agree with the reasoning. The minimum amount Bob can win is $30,000. TERMINATE',
        },
        { kind: 'task_outcome' },
      ],
      claim: /^Team ended a failed run on an answer adopted unchecked: .*\$30,000/,
      steps_: [1, 2, 3],
    },
    {
      name: 'a number a tool printed and an agent concluded with blames the tool’s output (its caller’s step)',
      steps: [
        posed('How many Nature articles in 2020 would be wrong at p = 0.04?'),
        { role: 'Statistics_Expert', text: 'Assuming 1000 articles, I compute 1000 * 0.05 in Python.' },
        { kind: 'tool_result', text: 'exitcode: 0 (execution succeeded)\nCode output: 50' },
        { role: 'Verification_Expert', text: 'The output confirms it: the answer is 50. TERMINATE' },
        { kind: 'task_outcome' },
      ],
      claim: /adopted unchecked: .*Code output: 50\.$/,
      steps_: [2, 3, 4],
    },
    {
      name: 'an orchestrator’s final answer no earlier step gave blames the conclusion itself',
      steps: [
        { kind: 'user_message', text: 'How many days in March 2020 had more than 2 inches of snow in Chicago?' },
        { role: 'Orchestrator (-> WebSurfer)', text: 'Please look up the daily snowfall for Chicago, March 2020.' },
        { role: 'WebSurfer', text: 'I typed "Chicago snowfall March 2020" into the search box.' },
        { role: 'Orchestrator (termination condition)', text: 'Max time reached.\nFINAL ANSWER: 7' },
        { kind: 'task_outcome' },
      ],
      claim: /^Team ended a failed run on an answer no earlier step gave: .*FINAL ANSWER: 7/,
      steps_: [3, 4],
    },
    {
      name: 'a value the task as posed already states is not the answer',
      steps: [
        posed('The Eiffel Tower is 1083 feet tall; how tall is it in yards, rounded?'),
        { role: 'Conversion_Expert', text: 'Dividing by 3 gives 361 yards for the tower.' },
        {
          role: 'Verification_Expert',
          text: 'Therefore the height is 361 yards, from the 1083 feet in the task. TERMINATE',
        },
        { kind: 'task_outcome' },
      ],
      claim: /adopted unchecked: Dividing by 3 gives 361 yards/,
      steps_: [1, 2, 3],
    },
  ];
  it.each(cases)('$name', async ({ steps, claim, steps_ }) => {
    const { notes } = await lessonsOf(run(steps));
    const lesson = notes.find((n) => /ended a failed run on an answer/.test(n.claim));
    expect(lesson).toMatchObject({ kind: 'failure_cause', steps: steps_ });
    expect(lesson?.claim).toMatch(claim);
  });

  const nothing: Array<{ name: string; steps: Step[] }> = [
    {
      name: 'a run that succeeded',
      steps: [
        posed('What is 6 times 7?'),
        { role: 'Math_Expert', text: 'Six times seven is 42.' },
        { role: 'Verification_Expert', text: 'Checked: the answer is 42. TERMINATE' },
        { kind: 'task_outcome', status: 'success' },
      ],
    },
    {
      name: 'a failed run with one agent (its own answer is not adopted from anyone)',
      steps: [
        { kind: 'user_message', text: 'What is the refund for order 1182?' },
        { role: 'assistant', text: 'The refund for order 1182 is $40.' },
        { role: 'assistant', text: 'Therefore, you will receive $40.' },
        { kind: 'task_outcome' },
      ],
    },
    {
      name: 'a failed run cut off before anyone concluded',
      steps: [
        posed('Which album did the band release in 1999?'),
        { role: 'Music_Expert', text: 'I will search the discography page first.' },
        { role: 'Web_Expert', text: 'Searching for the discography now.' },
        { kind: 'task_outcome' },
      ],
    },
  ];
  it.each(nothing)('finds no unchecked answer in $name', async ({ steps }) => {
    const { findings } = await lessonsOf(run(steps));
    expect(findings.map((f) => f.type)).not.toContain('unchecked_answer');
  });
});

describe('reading the answer', () => {
  it.each([
    ['Thus, the translation is: "Maktay Zapple Pa". TERMINATE', 'Maktay Zapple Pa'],
    ['In conclusion, the winner is **Reggie Jackson** with 86 walks.', '86'],
    ['Therefore the total is $1,200.50 for both passengers.', '$1,200.50'],
    ['Thus the result is printed by `print(f"{total}")` as 12.', '12'],
  ])('the last value of a concluding message: %s', (text, answer) => {
    const [ep] = toEpisodes(run([posed('A question.'), { role: 'Expert', text }, { kind: 'task_outcome' }]));
    expect(concludedAnswer(ep!)?.answer).toBe(answer);
  });

  it.each([
    ['there were 120 articles', '12', false],
    ['version 3.12 of the library', '12', false],
    ['the answer is 12.', '12', true],
    ['it is "Maktay Zapple Pa" in Tizin', 'maktay zapple pa', true],
  ])('%s states %s: %s', (text, value, expected) => {
    expect(states(text, value)).toBe(expected);
  });
});
