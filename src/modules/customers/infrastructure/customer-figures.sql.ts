import { openInvoiceSql } from '../../../shared/infrastructure/query/receivable.sql';

/**
 * The customer's stored figures (ADR 17) are written only by the database's triggers. A recount
 * from the rows they summarise is for loading data with triggers off (the seed) and for
 * checking that the triggers kept them (tests); it runs in a transaction that first says so
 * with `RECOUNT_FIGURES_SQL`, which the guard on `customers` lets through.
 */
export const RECOUNT_FIGURES_SQL = `SELECT set_config('receivables.recount', 'on', true)`;

/**
 * A select-list item (value ignored) by which a transaction lets the figure triggers move its
 * customers' figures once per customer at commit instead of once per statement (ADR 45,
 * migration 1764900000000). Only for a transaction that reads no customer figure after its
 * writes: inside it, they do not show its own moves until commit. Sent in a statement the
 * transaction sends anyway, before its first write.
 */
export const CUSTOMER_FIGURES_AT_COMMIT = `set_config('receivables.customer_figures', 'at_commit', true)`;

/**
 * Overdue figures of the customer row `c` as of `asOf` (default: the row's own
 * `overdue_as_of`): the open amount due before that day, and the first day they go stale (the
 * day after the earliest open due date on or after it). Select-list items with their FROM.
 */
export function overdueAsOfSelectSql(c = 'c', asOf = `${c}.overdue_as_of`): string {
  return `COALESCE(SUM(i.amount_due) FILTER (WHERE i.due_date < ${asOf}), 0),
          MIN(i.due_date) FILTER (WHERE i.due_date >= ${asOf}) + 1
     FROM invoices i
    WHERE i.tenant_id = ${c}.tenant_id AND i.customer_id = ${c}.id AND ${openInvoiceSql('i.')}`;
}

/**
 * Recounts the balance (Σ ledger) and the overdue figures of every customer, of one tenant
 * when `tenant` names a parameter placeholder, as of `asOf` (a date parameter placeholder;
 * default: each row's own `overdue_as_of`). The history figures have their own recount
 * (`customerSummaryRefreshSql`, migration 1763800400000).
 */
export function recountBalanceAndOverdueSql(tenant?: string, asOf?: string): string {
  const day = asOf ? `${asOf}::date` : 'c.overdue_as_of';
  return `
  UPDATE customers c
     SET overdue_as_of = ${day},
         balance = COALESCE((SELECT SUM(l.debit - l.credit) FROM ledger_entries l WHERE l.tenant_id = c.tenant_id AND l.customer_id = c.id), 0),
         (overdue_amount, overdue_refresh_on) = (SELECT ${overdueAsOfSelectSql('c', day)})
   WHERE ${tenant ? `c.tenant_id = ${tenant}` : 'true'}`;
}

/**
 * Recounts the customers' AR summary totals of §15 — `total_written_off` (Σ write-offs, plus the
 * amount due of invoices marked uncollectible) and `total_credited` (Σ credit notes not void) and `total_refunded` (Σ refunds) — of
 * one tenant when `tenant` names a parameter placeholder. Kept by triggers otherwise (migrations
 * 1763801500000, 1763801510000, 1763801520000).
 */
export function recountReceivableTotalsSql(tenant?: string): string {
  return `
  UPDATE customers c
     SET total_written_off = COALESCE((SELECT SUM(i.amount_written_off + CASE WHEN i.status = 'uncollectible' THEN i.amount_due ELSE 0 END)
                                         FROM invoices i WHERE i.tenant_id = c.tenant_id AND i.customer_id = c.id), 0),
         total_credited = COALESCE((SELECT SUM(n.amount) FROM credit_notes n
                                     WHERE n.tenant_id = c.tenant_id AND n.customer_id = c.id AND n.voided_at IS NULL), 0),
         total_refunded = COALESCE((SELECT SUM(r.amount) FROM refunds r WHERE r.tenant_id = c.tenant_id AND r.customer_id = c.id), 0)
   WHERE ${tenant ? `c.tenant_id = ${tenant}` : 'true'}`;
}
