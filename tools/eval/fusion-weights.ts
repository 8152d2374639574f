import { DEFAULT_FUSION_POLICY, type FusionPolicy } from '../../policies/fusion.ts';

/**
 * A fusion policy from the offline tools' `--weights` syntax:
 * `notes/recordVector/recordText[/recordHybrid[/lessons]][@k][~b][^span][-r][-t][+u]` (b: `recordLengthNorm`,
 * span: `recordTextSpan`, -r: no `replyAfterQuestion`, -t: no `namedTime`, +u: `updatesFirst`),
 * named by that text.
 */
export function fusionPolicyOf(named: string): FusionPolicy {
  const updatesFirst = named.endsWith('+u');
  const withoutReplies = named.includes('-r');
  const withoutNamedTime = named.includes('-t');
  const triple = (updatesFirst ? named.slice(0, -2) : named).replace('-r', '').replace('-t', '');
  const [withSpan, span] = triple.split('^');
  const [withK, b] = (withSpan as string).split('~');
  const [weightText, k] = (withK as string).split('@');
  const [notes, recordVector, recordText, recordHybrid = 0, lessons = notes] = (weightText as string)
    .split('/')
    .map(Number);
  if ([notes, recordVector, recordText, recordHybrid, lessons].some((w) => w === undefined || !Number.isFinite(w)))
    throw new Error(`--weights: "${triple}" is not notes/recordVector/recordText[/recordHybrid[/lessons]]`);
  const weights = { notes, recordVector, recordText, recordHybrid, lessons } as FusionPolicy['weights'];
  if (b !== undefined && !(Number(b) >= 0 && Number(b) <= 1))
    throw new Error(`--weights: "${triple}": ~b must be in 0..1`);
  return {
    ...DEFAULT_FUSION_POLICY,
    name: named,
    weights,
    updatesFirst,
    ...(k ? { k: Number(k) } : {}),
    ...(b !== undefined ? { recordLengthNorm: Number(b) } : {}),
    ...(span !== undefined ? { recordTextSpan: Number(span) } : {}),
    ...(withoutReplies ? { replyAfterQuestion: false } : {}),
    ...(withoutNamedTime ? { namedTime: undefined } : {}),
  };
}
