import type { ArchiveStore } from '../../src/archive/store.ts';

/** An archive store that counts the object reads (GETs) and identity checks (HEADs) reaching it. */
export function countingStore(store: ArchiveStore): ArchiveStore & { gets: number; heads: number } {
  const counted = Object.create(store) as ArchiveStore & { gets: number; heads: number };
  counted.gets = 0;
  counted.heads = 0;
  counted.getStream = (key) => {
    counted.gets += 1;
    return store.getStream(key);
  };
  counted.head = (key) => {
    counted.heads += 1;
    return store.head(key);
  };
  return counted;
}
