/**
 * Smallest sets of amounts that sum exactly to a target, for the `combination` matching rule.
 *
 * Plain enumeration of 5-element subsets of 50 invoices is C(50,5) = 2,118,760 sets; that is
 * too much CPU for one payment. Instead each size k is split meet-in-the-middle into a head
 * (the lower indices) and a pair (the two highest indices) looked up in a hash map of pair
 * sums, so a subset {i1 < … < ik} is found exactly once, via its canonical split:
 *   k=2: single i   + pair (p,q) with p > i          → at most n lookups
 *   k=3: single i   + pair (p,q) with p > i          (same lookups, head of one plus a pair)
 *   k=4: pair (i,j) + pair (p,q) with p > j          → at most C(n,2) lookups
 *   k=5: triple     + pair (p,q) with p > max(head)  → at most C(n,3) lookups
 * Each bucket of pairs is kept sorted by its lower index, descending, so a lookup visits only
 * pairs that form a solution and stops at the first that does not. Work is therefore bounded by
 * C(n,2) (building the map) + C(n,1)+C(n,1)+C(n,2)+C(n,3) lookups + the solutions reported, and
 * reporting stops at `maxSolutions`: for n = 50 that is under 23,000 steps, whatever the amounts.
 */

export const COMBINATION_MAX_SIZE = 5;
export const COMBINATION_POOL_SIZE = 50;

export interface CombinationResult {
  /** size of the smallest sets found (0 when none) */
  size: number;
  /** index sets (ascending indices into the input), at most `maxSolutions` */
  sets: number[][];
  /** true when more sets of that size exist than were reported */
  truncated: boolean;
  /** lookups and pair insertions performed: the measure of CPU spent */
  steps: number;
}

type Pair = readonly [number, number];

/**
 * @param amounts positive integers (minor units), at most COMBINATION_POOL_SIZE of them
 * @param minSize smallest set size to consider (the matching policy starts at 2: size 1 is `exact_amount`)
 * @param maxSolutions stop once this many sets of the smallest size are known (2 decides ambiguity)
 */
export function findSmallestCombinations(
  amounts: readonly number[],
  target: number,
  { minSize = 2, maxSize = COMBINATION_MAX_SIZE, maxSolutions = 2 }: { minSize?: number; maxSize?: number; maxSolutions?: number } = {},
): CombinationResult {
  const n = amounts.length;
  let steps = 0;
  if (target <= 0 || n === 0) return { size: 0, sets: [], truncated: false, steps };

  if (minSize <= 1) {
    const singles: number[][] = [];
    for (let i = 0; i < n; i++) {
      steps++;
      if (amounts[i] === target) singles.push([i]);
    }
    if (singles.length > 0) return limit(1, singles);
  }
  if (maxSize < 2 || n < 2) return { size: 0, sets: [], truncated: false, steps };

  // Pair sums: sum -> pairs (p < q), sorted by p descending so a lookup with "p > bound" can stop early.
  const pairs = new Map<number, Pair[]>();
  for (let p = n - 2; p >= 0; p--) {
    for (let q = p + 1; q < n; q++) {
      steps++;
      const sum = amounts[p] + amounts[q];
      if (sum > target) continue;
      const bucket = pairs.get(sum);
      if (bucket) bucket.push([p, q]);
      else pairs.set(sum, [[p, q]]);
    }
  }

  const found: number[][] = [];
  let truncated = false;
  /** Appends head + each pair above `bound` summing to `rest`; false once enough were found. */
  const lookup = (head: number[], bound: number, rest: number): boolean => {
    steps++;
    const bucket = pairs.get(rest);
    if (!bucket) return true;
    for (const [p, q] of bucket) {
      if (p <= bound) break;
      if (found.length === maxSolutions) {
        truncated = true;
        return false;
      }
      found.push([...head, p, q]);
    }
    return true;
  };

  for (let size = Math.max(2, minSize); size <= Math.min(maxSize, n, COMBINATION_MAX_SIZE); size++) {
    search: switch (size) {
      case 2:
        if (!lookup([], -1, target)) break search;
        break;
      case 3:
        for (let i = 0; i < n; i++) if (!lookup([i], i, target - amounts[i])) break search;
        break;
      case 4:
        for (let i = 0; i < n; i++)
          for (let j = i + 1; j < n; j++) if (!lookup([i, j], j, target - amounts[i] - amounts[j])) break search;
        break;
      case 5:
        for (let i = 0; i < n; i++)
          for (let j = i + 1; j < n; j++)
            for (let k = j + 1; k < n; k++) if (!lookup([i, j, k], k, target - amounts[i] - amounts[j] - amounts[k])) break search;
        break;
    }
    if (found.length > 0) return { size, sets: found, truncated, steps };
  }
  return { size: 0, sets: [], truncated: false, steps };

  function limit(size: number, sets: number[][]): CombinationResult {
    return { size, sets: sets.slice(0, maxSolutions), truncated: sets.length > maxSolutions, steps };
  }
}

/** The most steps a search over `n` amounts can take (the bound asserted by the tests). */
export function combinationStepBound(n: number, maxSolutions = 2): number {
  const c2 = (n * (n - 1)) / 2;
  const c3 = (n * (n - 1) * (n - 2)) / 6;
  return n + c2 + 1 + n + c2 + c3 + maxSolutions + 1;
}
