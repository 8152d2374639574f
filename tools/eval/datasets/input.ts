import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import type { EvalDataset } from '../types.ts';

/** A dataset file that is missing, unreadable or not in the format its loader expects. */
export class DatasetFormatError extends Error {
  override name = 'DatasetFormatError';
  constructor(dataset: EvalDataset, file: string, problem: string) {
    super(`${dataset}: ${file}: ${problem}`);
  }
}

/** How a loader reports what it had to repair or drop in the source (e.g. a malformed evidence id). */
export interface LoadOptions {
  onIssue?: (message: string) => void;
}

export async function readJson(dataset: EvalDataset, file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new DatasetFormatError(dataset, file, `cannot read it (${(error as Error).message})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new DatasetFormatError(dataset, file, `not valid JSON (${(error as Error).message})`);
  }
}

/** Checks `value` against the fields a loader reads; the error names the first wrong field by its path. */
export function parseAs<T>(schema: z.ZodType<T>, value: unknown, dataset: EvalDataset, file: string, at = ''): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = at + (issue ? formatPath(issue.path, at !== '') : '');
  throw new DatasetFormatError(dataset, file, `${where ? `${where}: ` : ''}${issue?.message ?? 'unexpected format'}`);
}

/** `[2].qa[5].category`: where in the file a value is. */
export const formatPath = (parts: readonly PropertyKey[], nested = false): string =>
  parts.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 || nested ? '.' : ''}${String(p)}`)).join('');

export async function isDirectory(target: string): Promise<boolean> {
  return (await stat(target).catch(() => undefined))?.isDirectory() ?? false;
}

export async function isFile(target: string): Promise<boolean> {
  return (await stat(target).catch(() => undefined))?.isFile() ?? false;
}

/** A dataset given as its folder or as its one JSON file: the file. */
export async function singleJsonFile(dataset: EvalDataset, target: string): Promise<string> {
  if (!(await isDirectory(target))) return target;
  const files = (await readdir(target)).filter((f) => f.endsWith('.json'));
  if (files.length !== 1) {
    throw new DatasetFormatError(
      dataset,
      target,
      `expected exactly one .json file in the folder, found ${files.length}`,
    );
  }
  return path.join(target, files[0] as string);
}

/** Sub-folders or files of `dir` whose names are numbers, in numeric order (`1, 3, 11`, not `1, 11, 3`). */
export async function numberedEntries(dir: string, suffix = ''): Promise<{ id: number; name: string }[]> {
  const names = await readdir(dir);
  return names
    .flatMap((name) => {
      const m = /^(\d+)(.*)$/.exec(name);
      return m && m[2] === suffix ? [{ id: Number(m[1]), name }] : [];
    })
    .sort((a, b) => a.id - b.id);
}
