import fc from 'fast-check';
import {
  combinationStepBound,
  COMBINATION_POOL_SIZE,
  findSmallestCombinations,
} from '../../../src/modules/payments/domain/matching/combination-search';

/** Reference answer by plain enumeration (fine for small inputs). */
function bruteForce(amounts: number[], target: number, maxSize = 5): number[][] {
  for (let size = 2; size <= Math.min(maxSize, amounts.length); size++) {
    const sets: number[][] = [];
    const walk = (start: number, chosen: number[], sum: number) => {
      if (chosen.length === size) {
        if (sum === target) sets.push([...chosen]);
        return;
      }
      for (let i = start; i < amounts.length; i++) walk(i + 1, [...chosen, i], sum + amounts[i]);
    };
    walk(0, [], 0);
    if (sets.length > 0) return sets;
  }
  return [];
}

const key = (sets: number[][]) => sets.map((s) => s.join(',')).sort();

describe('combination search', () => {
  it('finds the unique smallest set', () => {
    const res = findSmallestCombinations([100, 250, 400, 1000, 75], 350);
    expect(res.size).toBe(2);
    expect(res.sets).toEqual([[0, 1]]);
    expect(res.truncated).toBe(false);
  });

  it('prefers a smaller set over a larger one', () => {
    // 600 = 100+500 (2 invoices) = 100+200+300 (3 invoices): the pair wins.
    const res = findSmallestCombinations([100, 200, 300, 500], 600);
    expect(res.sets).toEqual([[0, 3]]);
  });

  it('reports several equally small sets', () => {
    const res = findSmallestCombinations([100, 200, 300, 400], 500, { maxSolutions: 10 });
    expect(res.size).toBe(2);
    expect(key(res.sets)).toEqual(key([[0, 3], [1, 2]]));
  });

  it('finds sets of five and nothing beyond five', () => {
    const amounts = [1, 2, 4, 8, 16, 32, 64];
    expect(findSmallestCombinations(amounts, 31).sets).toEqual([[0, 1, 2, 3, 4]]);
    expect(findSmallestCombinations(amounts, 63)).toMatchObject({ size: 0, sets: [] });
  });

  it('never uses one invoice twice', () => {
    expect(findSmallestCombinations([50, 100], 100).sets).toEqual([]);
    expect(findSmallestCombinations([50, 70], 100).sets).toEqual([]);
  });

  it('agrees with plain enumeration on random inputs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 0, maxLength: 12 }),
        fc.integer({ min: 1, max: 200 }),
        (amounts, target) => {
          const expected = bruteForce(amounts, target);
          const res = findSmallestCombinations(amounts, target, { maxSolutions: 1_000_000 });
          expect(key(res.sets)).toEqual(key(expected));
          expect(res.size).toBe(expected[0]?.length ?? 0);
        },
      ),
      { numRuns: 300 },
    );
  });

  describe('stays within its work bound on the worst inputs', () => {
    const n = COMBINATION_POOL_SIZE;
    const bound = combinationStepBound(n);
    // The bound is structural (C(50,2) pair insertions + C(50,3) + C(50,2) + 2·50 lookups + reports):
    // under 23,000, against 2,118,760 five-element subsets for plain enumeration.
    it('has a bound far below enumeration', () => {
      expect(bound).toBeLessThan(23_000);
    });

    const cases: [string, number[], number][] = [
      // Amounts that bounds cannot prune and no set reaches: the full meet-in-the-middle search runs.
      ['no solution, nothing prunes', Array.from({ length: n }, (_, i) => 2 * i + 1_001), 10_000],
      ['every subset fits (all equal)', Array.from({ length: n }, () => 100), 500],
      ['powers of two, unreachable', Array.from({ length: n }, (_, i) => 2 ** (i % 30) + i), 1],
      ['distinct amounts, one five-set', Array.from({ length: n }, (_, i) => 2 ** i), 1 + 2 + 4 + 8 + 2 ** 49],
    ];
    it.each(cases)('%s', (_name, amounts, target) => {
      const res = findSmallestCombinations(amounts, target);
      expect(res.steps).toBeLessThanOrEqual(bound);
      expect(res.sets.length).toBeLessThanOrEqual(2);
    });

    it('finds the one five-set among distinct amounts', () => {
      // Sums of distinct powers of two are unique: exactly one set fits.
      const amounts = Array.from({ length: n }, (_, i) => 2 ** i);
      const res = findSmallestCombinations(amounts, 1 + 2 + 4 + 8 + 2 ** 49);
      expect(res.sets).toEqual([[0, 1, 2, 3, 49]]);
    });

    it('holds for random pools', () => {
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 1, max: 5_000 }), { minLength: n, maxLength: n }), fc.integer({ min: 1, max: 25_000 }), (amounts, target) => {
          expect(findSmallestCombinations(amounts, target).steps).toBeLessThanOrEqual(bound);
        }),
        { numRuns: 50 },
      );
    });
  });
});
