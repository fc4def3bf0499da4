import { Injectable } from '@nestjs/common';
import { toNullableNumber, toSafeNumber } from '../../../shared/infrastructure/database/data-source';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';

export interface CustomerPaymentFigures {
  totalPaid: number;
  unappliedPayments: number;
  lastPayment: { id: string; amount: number; payment_date: string } | null;
  averageDaysToPay: number | null;
}

const PROBE_TTL_MS = 30_000;

/**
 * The payment side of a customer's `ar_summary`. It reads the payments module's
 * `payments` and `payment_applications` tables (contract §8) when they exist and answers
 * zeros before (the tables arrive with the payments migration). Extension point for the
 * payments module: the SQL below is the only place customers reads payment data.
 */
@Injectable()
export class PaymentFiguresReader {
  private present = false;
  private checkedAt = 0;

  constructor(private readonly uow: UnitOfWork) {}

  async forCustomer(tenantId: string, customerId: string): Promise<CustomerPaymentFigures> {
    if (!(await this.paymentsInstalled())) {
      const [row] = await this.uow.query<{ average_days: string | null }>(
        `SELECT ROUND(AVG((i.paid_at AT TIME ZONE 'UTC')::date - i.issue_date), 1)::text AS average_days
           FROM invoices i WHERE i.tenant_id = $1 AND i.customer_id = $2 AND i.status = 'paid'`,
        [tenantId, customerId],
      );
      return { totalPaid: 0, unappliedPayments: 0, lastPayment: null, averageDaysToPay: row.average_days === null ? null : Number(row.average_days) };
    }
    const [row] = await this.uow.query<{
      total_paid: string;
      unapplied: string;
      last_id: string | null;
      last_amount: string | null;
      last_date: string | null;
      average_days: string | null;
    }>(
      `WITH p AS (
         SELECT p.id, p.amount, p.payment_date,
                p.amount - COALESCE((SELECT SUM(a.amount) FROM payment_applications a
                                      WHERE a.tenant_id = p.tenant_id AND a.payment_id = p.id AND a.reversed_at IS NULL), 0) AS unapplied
           FROM payments p WHERE p.tenant_id = $1 AND p.customer_id = $2),
       last AS (SELECT id, amount, payment_date FROM p ORDER BY payment_date DESC, id DESC LIMIT 1)
       SELECT (SELECT COALESCE(SUM(amount), 0) FROM p)::text AS total_paid,
              (SELECT COALESCE(SUM(unapplied), 0) FROM p)::text AS unapplied,
              (SELECT id FROM last) AS last_id,
              (SELECT amount FROM last)::text AS last_amount,
              (SELECT to_char(payment_date, 'YYYY-MM-DD') FROM last) AS last_date,
              (SELECT ROUND(AVG(COALESCE(
                        (SELECT MAX(pp.payment_date) FROM payment_applications a
                           JOIN payments pp ON pp.tenant_id = a.tenant_id AND pp.id = a.payment_id
                          WHERE a.tenant_id = i.tenant_id AND a.invoice_id = i.id AND a.reversed_at IS NULL),
                        (i.paid_at AT TIME ZONE 'UTC')::date) - i.issue_date), 1)
                 FROM invoices i WHERE i.tenant_id = $1 AND i.customer_id = $2 AND i.status = 'paid')::text AS average_days`,
      [tenantId, customerId],
    );
    return {
      totalPaid: toSafeNumber(row.total_paid),
      unappliedPayments: toSafeNumber(row.unapplied),
      lastPayment: row.last_id ? { id: row.last_id, amount: toSafeNumber(row.last_amount), payment_date: row.last_date! } : null,
      averageDaysToPay: row.average_days === null ? null : Number(row.average_days),
    };
  }

  private async paymentsInstalled(): Promise<boolean> {
    if (this.present || Date.now() - this.checkedAt < PROBE_TTL_MS) return this.present;
    const [row] = await this.uow.query<{ ok: boolean }>(
      `SELECT to_regclass('payments') IS NOT NULL AND to_regclass('payment_applications') IS NOT NULL AS ok`,
    );
    this.present = row.ok;
    this.checkedAt = Date.now();
    return this.present;
  }
}
