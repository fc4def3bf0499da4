import { setFlagsFromString } from 'node:v8';

/**
 * While a bank file is read or its credits recorded, V8 may let the old space grow to twice the
 * live heap between full collections (`--heap-growing-percent=100`) instead of its own factor
 * (about three times at the import's allocation rate): the import's peak RSS went from 308 to 241 MB
 * on the 20,000-entry bench, for a few percent more of the service's CPU in GC (docs/benchmarks.md).
 * Process-wide while any such work runs (the factor is read at each full collection), V8's own
 * again when none does. The flag is a plain number V8 reads when it sizes the heap; Node warns that
 * flags changed after start may do nothing, in which case the heap simply grows as before.
 */
let holders = 0;

export function holdLeanHeap(): () => void {
  if (holders++ === 0) setFlagsFromString('--heap-growing-percent=100');
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--holders === 0) setFlagsFromString('--heap-growing-percent=0');
  };
}

/** Runs `work` with the lean heap held. */
export async function withLeanHeap<T>(work: () => Promise<T>): Promise<T> {
  const release = holdLeanHeap();
  try {
    return await work();
  } finally {
    release();
  }
}
