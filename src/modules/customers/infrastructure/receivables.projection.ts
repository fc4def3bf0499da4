import { Injectable, OnModuleInit } from '@nestjs/common';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { TenantCalendar, TimeZoneChanges } from '../../settings';

/**
 * Keeps the customers' denormalised overdue figures (`overdue_amount`,
 * `overdue_invoice_count`) that customer lists sort and filter on. They depend on the
 * customer's open invoices and on the calendar, so they are recomputed
 * - in the transaction of every invoice save (the invoicing repository calls `refresh`), and
 * - lazily on read once a day they were computed for has passed a due date
 *   (`overdue_refresh_on`, the first day the stored figures are wrong; `refreshStale`).
 * Each recomputation is one aggregate over the customer's open invoices (a partial index).
 * "Today" is the tenant's local date; when the tenant's time zone changes, every customer's
 * figures are marked stale (they may be as of another day).
 */
@Injectable()
export class ReceivablesProjection implements OnModuleInit {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly calendar: TenantCalendar,
    private readonly timeZoneChanges: TimeZoneChanges,
  ) {}

  onModuleInit(): void {
    this.timeZoneChanges.subscribe((tenantId) => this.markStale(tenantId));
  }

  async refresh(tenantId: string, customerIds: readonly string[]): Promise<void> {
    if (customerIds.length === 0) return;
    await this.uow.query(
      `UPDATE customers c
          SET overdue_amount = f.overdue_amount, overdue_invoice_count = f.overdue_count, overdue_refresh_on = f.refresh_on
         FROM (SELECT t.id,
                      COALESCE(SUM(i.total - i.amount_paid) FILTER (WHERE i.due_date < $3::date), 0) AS overdue_amount,
                      COUNT(i.id) FILTER (WHERE i.due_date < $3::date) AS overdue_count,
                      MIN(i.due_date) FILTER (WHERE i.due_date >= $3::date) + 1 AS refresh_on
                 FROM unnest($2::text[]) AS t (id)
                 LEFT JOIN invoices i
                   ON i.tenant_id = $1 AND i.customer_id = t.id
                  AND i.status IN ('open', 'partially_paid') AND i.total > i.amount_paid
                GROUP BY t.id) f
        WHERE c.tenant_id = $1 AND c.id = f.id
          AND (c.overdue_amount, c.overdue_invoice_count, c.overdue_refresh_on)
              IS DISTINCT FROM (f.overdue_amount, f.overdue_count::int, f.refresh_on)`,
      [tenantId, [...new Set(customerIds)].sort(), await this.calendar.today(tenantId)],
    );
  }

  /** Recomputes the tenant's customers whose figures went stale with the calendar (usually none). */
  async refreshStale(tenantId: string): Promise<void> {
    const stale = await this.uow.query<{ id: string }>(
      `SELECT id FROM customers WHERE tenant_id = $1 AND overdue_refresh_on <= $2::date ORDER BY id`,
      [tenantId, await this.calendar.today(tenantId)],
    );
    if (stale.length === 0) return;
    await this.uow.run(() => this.refresh(tenantId, stale.map((r) => r.id)));
  }

  /** Every customer of the tenant is refreshed on its next read (-infinity is before any today). */
  private async markStale(tenantId: string): Promise<void> {
    await this.uow.query(`UPDATE customers SET overdue_refresh_on = '-infinity' WHERE tenant_id = $1`, [tenantId]);
  }
}
