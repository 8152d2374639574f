import { DEFAULT_FUSION_POLICY, type FusionPolicy } from '../../policies/fusion.ts';

/**
 * A fusion policy from the offline tools' `--weights` syntax:
 * `notes/recordVector/recordText[/recordHybrid[/lessons]][@k]`, named by that text.
 */
export function fusionPolicyOf(triple: string): FusionPolicy {
  const [weightText, k] = triple.split('@');
  const [notes, recordVector, recordText, recordHybrid = 0, lessons = notes] = (weightText as string)
    .split('/')
    .map(Number);
  if ([notes, recordVector, recordText, recordHybrid, lessons].some((w) => w === undefined || !Number.isFinite(w)))
    throw new Error(`--weights: "${triple}" is not notes/recordVector/recordText[/recordHybrid[/lessons]]`);
  const weights = { notes, recordVector, recordText, recordHybrid, lessons } as FusionPolicy['weights'];
  return { ...DEFAULT_FUSION_POLICY, name: triple, weights, ...(k ? { k: Number(k) } : {}) };
}
