/**
 * The names the tool commands offer as choices. They live apart from the code that uses them
 * so that registering the commands (and `nocturne --help`) loads none of that code.
 */

/** The datasets `nocturne eval` reads (their formats: ../shared/datasets/<folder>/README.md). */
export const EVAL_DATASETS = ['locomo', 'beam', 'tau-bench', 'who-and-when'] as const;
export type EvalDataset = (typeof EVAL_DATASETS)[number];

/** The synthetic vector geometries of `nocturne bench recall` (defined in tools/bench/recall-bench-data.ts). */
export const GEOMETRY_NAMES = ['e5', 'clustered'] as const;
export type GeometryName = (typeof GEOMETRY_NAMES)[number];

/** The pipeline switches `nocturne eval --ablate` turns off (defined in tools/eval/ablations.ts). */
export const ABLATION_NAMES = ['records', 'asker'] as const;
export type AblationName = (typeof ABLATION_NAMES)[number];
