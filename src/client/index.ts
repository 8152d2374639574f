/**
 * The typed HTTP client agents use to talk to Nocturne (`@nocturne/client`, built from here by
 * `npm run build:client`). HTTP only: it needs neither Temporal credentials nor the database.
 */
export {
  createNocturneClient,
  NocturneApiError,
  type NocturneClient,
  type NocturneClientOptions,
  type RecallClientRequest,
} from './client.ts';
export type {
  ConflictRequest,
  ConflictResult,
  FeedbackRequest,
  FeedbackResult,
  MessagesRequest,
  NoteHistoryResult,
  NoteResult,
  RecordsResult,
} from '../api/contract.ts';
export type { RecallResult, RecalledNote, RecalledRecord } from '../recall/contract.ts';
export type { NoteVersion } from '../contracts/note.ts';
