/**
 * The small typed client the online agent uses to talk to Nocturne's workflows. It takes a
 * connected `@temporalio/client` Client; the caller owns the connection.
 */
export {
  reportConflict,
  parseConflictReport,
  InvalidConflictReportError,
  type ReportConflictInput,
  type ReportConflictOptions,
  type ReportConflictResult,
} from './conflicts.ts';
export { conflictMonitorId } from '../contracts/workflow-ids.ts';
export {
  createRecallClient,
  RecallApiError,
  type RecallClient,
  type RecallClientOptions,
  type RecallClientRequest,
} from './recall-client.ts';
