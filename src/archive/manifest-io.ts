import { ArchiveManifestError } from './errors.ts';
import { dataKeyForManifest, manifestKeyFor } from './keys.ts';
import { Manifest } from './manifest.ts';
import type { ArchiveStore } from './store.ts';

/**
 * Reads and validates the manifest of a data object. Manifests come from storage, so they are
 * parsed with their schema here; a bad one is a permanent `ArchiveManifestError`, a missing
 * one an `ArchiveObjectNotFoundError`.
 */
export async function readManifest(store: ArchiveStore, objectKey: string): Promise<Manifest> {
  const manifestKey = manifestKeyFor(objectKey);
  const bytes = await store.getBytes(manifestKey);
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    // Not the parser's message, nor the parser's error as the cause: it quotes the text around
    // the fault, and a manifest holds user, session and task ids. The failure reaches the run's
    // history, where an erasure cannot reach.
    throw new ArchiveManifestError(manifestKey, `not JSON (${bytes.length} bytes)`);
  }
  const parsed = Manifest.safeParse(value);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.')}: ${i.message}`)
      .join('; ');
    throw new ArchiveManifestError(manifestKey, detail, { cause: parsed.error });
  }
  if (parsed.data.objectKey !== dataKeyForManifest(manifestKey)) {
    throw new ArchiveManifestError(manifestKey, `it names another object (${parsed.data.objectKey})`);
  }
  return parsed.data;
}
