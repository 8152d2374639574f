/** The operators' note inspector: server-rendered pages mounted on the API server at /inspector. */
export { createInspectorApp, type InspectorDeps } from './app.ts';
export { createOperatorAuth, SESSION_COOKIE, type OperatorAuth } from './auth.ts';
export { temporalRollbackLauncher, type RollbackLauncher, type RollbackOutcome } from './workflows.ts';
export { retireSupport, rollbackInput, type RetireSupport } from './rollback-input.ts';
