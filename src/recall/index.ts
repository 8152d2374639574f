/** Recall and context injection: the library entry point the CLI and the HTTP API share. */
export {
  recall,
  candidateLimit,
  describeRequestIssues,
  InvalidRecallRequestError,
  type RecallOptions,
} from './recall.ts';
export {
  RecallRequest,
  RecallResult,
  RecalledNote,
  RecalledRecord,
  RankedItem,
  RECALL_SOURCES,
  MAX_K,
  type ParsedRecallRequest,
} from './contract.ts';
export { assembleContext, type Assembly, type AssembledItem, type ScoredCandidate } from './assemble.ts';
