export { createDeterministicEngine } from './deterministic/index.ts';
export { generalPart } from './deterministic/people.ts';
export { MAX_CLAIM_CHARS } from './deterministic/proposal.ts';
