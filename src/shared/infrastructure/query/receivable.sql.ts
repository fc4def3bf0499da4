import { OPEN_STATUSES } from '../../domain/receivable';

/**
 * The open / overdue invoice rule of `shared/domain/receivable.ts` as SQL, generated from the same
 * constants. `row` is a table alias or a trigger record with its dot (`i.`, `NEW.`) or '' for an
 * unqualified column. Statuses are literals, not parameters, so the planner can prove the
 * predicates of the partial open-invoice indexes (`WHERE status IN (…the open statuses…)`)
 * even for a prepared statement's generic plan.
 */
export const OPEN_STATUS_LIST_SQL = `(${OPEN_STATUSES.map((s) => `'${s}'`).join(', ')})`;

/** The invoice takes payments (its status is one of the open ones). */
export function openStatusSql(row = 'i.'): string {
  return `${row}status IN ${OPEN_STATUS_LIST_SQL}`;
}

/** The invoice is open: an open status and something due. */
export function openInvoiceSql(row = 'i.'): string {
  return `${openStatusSql(row)} AND ${row}amount_due > 0`;
}

/** The invoice is overdue as of `asOf` (a date expression or parameter placeholder, e.g. `$3`). */
export function overdueInvoiceSql(asOf: string, row = 'i.'): string {
  return `${openInvoiceSql(row)} AND ${row}due_date < ${asOf}::date`;
}
