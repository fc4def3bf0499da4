import { Figure } from '../../../shared/domain/figure';

/**
 * Aging buckets by days past the due date (contract §6). `current` holds everything not yet
 * past due, so the buckets always add up to the open amount due. The SQL that ages
 * receivables is generated from this table, so the database and this code cannot disagree.
 */
export const AGING_BUCKETS = [
  { key: 'current', minDays: null, maxDays: 0 },
  { key: 'days_1_30', minDays: 1, maxDays: 30 },
  { key: 'days_31_60', minDays: 31, maxDays: 60 },
  { key: 'days_61_90', minDays: 61, maxDays: 90 },
  { key: 'days_over_90', minDays: 91, maxDays: null },
] as const;

export type AgingBucket = (typeof AGING_BUCKETS)[number]['key'];
export type Aging = Record<AgingBucket, number>;
/** A customer's aging: exact for any size of history (shared/domain/figure.ts). */
export type FigureAging = Record<AgingBucket, Figure>;

export function emptyAging(): Aging {
  return { current: 0, days_1_30: 0, days_31_60: 0, days_61_90: 0, days_over_90: 0 };
}
