import { Injectable } from '@nestjs/common';
import { toSafeNumber } from '../../../shared/infrastructure/database/data-source';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';

export interface CustomerPaymentFigures {
  totalPaid: number;
  unappliedPayments: number;
  lastPayment: { id: string; amount: number; payment_date: string } | null;
  averageDaysToPay: number | null;
}

/**
 * The payment side of a customer's `ar_summary`, read from the payments module's tables
 * (`payments`, `payment_applications`, contract §8): the one place customers reads payment
 * data. A paid invoice counts as paid on the latest payment date of its active applications
 * (the date the money arrived, not the day it was matched).
 */
@Injectable()
export class PaymentFiguresReader {
  constructor(private readonly uow: UnitOfWork) {}

  async forCustomer(tenantId: string, customerId: string): Promise<CustomerPaymentFigures> {
    const [row] = await this.uow.query<{
      total_paid: string;
      unapplied: string;
      last_id: string | null;
      last_amount: string | null;
      last_date: string | null;
      average_days: string | null;
    }>(
      `WITH p AS (SELECT id, amount, amount_applied, payment_date FROM payments WHERE tenant_id = $1 AND customer_id = $2),
            last AS (SELECT id, amount, payment_date FROM p ORDER BY payment_date DESC, id DESC LIMIT 1),
            paid AS (
              SELECT COALESCE((SELECT MAX(pp.payment_date)
                                 FROM payment_applications a
                                 JOIN payments pp ON pp.tenant_id = a.tenant_id AND pp.id = a.payment_id
                                WHERE a.tenant_id = i.tenant_id AND a.invoice_id = i.id AND a.reversed_at IS NULL),
                              (i.paid_at AT TIME ZONE 'UTC')::date) - i.issue_date AS days
                FROM invoices i
               WHERE i.tenant_id = $1 AND i.customer_id = $2 AND i.status = 'paid')
       SELECT (SELECT COALESCE(SUM(amount), 0) FROM p)::text AS total_paid,
              (SELECT COALESCE(SUM(amount - amount_applied), 0) FROM p)::text AS unapplied,
              (SELECT id FROM last) AS last_id,
              (SELECT amount FROM last)::text AS last_amount,
              (SELECT payment_date FROM last)::text AS last_date,
              (SELECT ROUND(AVG(days), 1) FROM paid)::text AS average_days`,
      [tenantId, customerId],
    );
    return {
      totalPaid: toSafeNumber(row.total_paid),
      unappliedPayments: toSafeNumber(row.unapplied),
      lastPayment: row.last_id ? { id: row.last_id, amount: toSafeNumber(row.last_amount), payment_date: row.last_date! } : null,
      averageDaysToPay: row.average_days === null ? null : Number(row.average_days),
    };
  }
}
