import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import type { z } from 'zod';
import { FailureType } from '../src/contracts/failure-types.ts';
import { describeInputError } from '../src/contracts/workflow-inputs.ts';

/**
 * The failure of a workflow whose input is wrong: non-retryable (the same input fails the same
 * way), naming the workflow type and every bad field, raised before any activity runs.
 */
export function invalidWorkflowInput(detail: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    `invalid ${workflowInfo().workflowType} input: ${detail}`,
    FailureType.InvalidWorkflowInput,
  );
}

/** A workflow's first line: its input parsed with its schema from src/contracts/workflow-inputs.ts. */
export function parseWorkflowInput<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw invalidWorkflowInput(describeInputError(parsed.error));
  return parsed.data;
}
