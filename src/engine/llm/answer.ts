import { z } from 'zod';
import { NOTE_KINDS, SCOPE_LEVELS } from '../../contracts/note.ts';
import { CONDITION_OPS, SUBJECT_TYPES } from '../../contracts/note-structure.ts';

/**
 * The model's answer. The answer as a whole must be a JSON object with a `changes` array (else it
 * is retried, then the batch falls back); each change is then checked on its own, so one bad
 * change is refused with its rule and the others go on.
 */

/** A date as the model writes it: `2023-05-07` or a full ISO date-time. */
const DateText = z.string().min(4).max(40);

/** The structure as the model writes it; dates are normalised and checked after parsing. */
export const StructureAnswer = z.object({
  subject: z.object({ type: z.enum(SUBJECT_TYPES), id: z.string().min(1).max(256) }),
  attribute: z.string().min(1).max(128),
  value: z.string().min(1).max(1000),
  contrast: z.string().min(1).max(1000).optional(),
  exclusive: z.boolean().optional(),
  polarity: z.enum(['positive', 'negative']),
  conditions: z
    .array(
      z.object({
        field: z.string().min(1).max(128),
        op: z.enum(CONDITION_OPS),
        value: z.union([z.string().max(256), z.number(), z.boolean()]),
      }),
    )
    .max(8)
    .optional(),
  time: z
    .object({ at: DateText.optional(), until: DateText.optional(), source: z.string().max(200).optional() })
    .optional(),
});
export type StructureAnswer = z.infer<typeof StructureAnswer>;

const finding = z.number().int();
const records = z.array(z.number().int()).min(1).max(50);
const noteRef = { note: z.string().min(1).max(64), version: z.number().int().min(1) };
const claim = z.string().min(1).max(600).optional();

export const CreateChange = z.object({
  op: z.literal('create'),
  finding,
  kind: z.enum(NOTE_KINDS),
  scope: z.enum(SCOPE_LEVELS),
  structure: StructureAnswer,
  claim,
  records,
});

export const ReviseChange = z.object({
  op: z.literal('revise'),
  ...noteRef,
  finding,
  structure: StructureAnswer,
  claim,
  records,
});

export const ReinforceChange = z.object({ op: z.literal('reinforce'), ...noteRef, finding, records });

export const RetireChange = z.object({
  op: z.literal('retire'),
  ...noteRef,
  finding,
  reason: z.string().min(1).max(300),
  records,
});

export const Change = z.discriminatedUnion('op', [CreateChange, ReviseChange, ReinforceChange, RetireChange]);
export type Change = z.infer<typeof Change>;
export type CreateChange = z.infer<typeof CreateChange>;
export type ReviseChange = z.infer<typeof ReviseChange>;
export type ReinforceChange = z.infer<typeof ReinforceChange>;
export type RetireChange = z.infer<typeof RetireChange>;

/** What is parsed: the envelope only. */
export const Envelope = z.object({ changes: z.array(z.unknown()).max(100) });

/** What the server is asked for (JSON schema / constrained decoding): every change in full. */
export const ResponseSchema = z.object({ changes: z.array(Change) });
