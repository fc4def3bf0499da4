import { AGING_BUCKETS, Aging, FigureAging } from '../domain/aging';
import { toFigure, toSafeNumber } from '../../../shared/infrastructure/database/data-source';

/**
 * SQL select-list items summing open amounts per aging bucket, generated from the domain's
 * AGING_BUCKETS (days past due = as-of date − due date). `asOf` is a parameter placeholder.
 */
export function agingSelectList(dueSql: string, amountSql: string, asOf: string): string {
  return AGING_BUCKETS.map((b) => {
    const days = `(${asOf}::date - ${dueSql})`;
    const conds = [b.minDays === null ? null : `${days} >= ${b.minDays}`, b.maxDays === null ? null : `${days} <= ${b.maxDays}`].filter(Boolean);
    return `COALESCE(SUM(${amountSql}) FILTER (WHERE ${conds.join(' AND ')}), 0)::text AS ${b.key}`;
  }).join(',\n       ');
}

export function figureAgingFromRow(row: Record<string, unknown> | undefined): FigureAging {
  return Object.fromEntries(AGING_BUCKETS.map((b) => [b.key, toFigure(row?.[b.key] as string | undefined)])) as FigureAging;
}

export function agingFromRow(row: Record<string, unknown> | undefined): Aging {
  return Object.fromEntries(AGING_BUCKETS.map((b) => [b.key, toSafeNumber(row?.[b.key] as string | undefined)])) as Aging;
}
