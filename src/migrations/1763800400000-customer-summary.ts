import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The figures of a customer's `ar_summary` that depend on its whole history (contract §6:
 * total invoiced, total paid, average days to pay, last payment), kept on the customer row so
 * that `GET /customers/:id` costs the same for a customer with 10,000 invoices as for one with
 * ten (ADR 14). Triggers keep them: each invoice or payment change adds its new contribution
 * and takes back its old one, so every write path (the service, the seed without replication
 * privileges, a hand-run UPDATE) keeps them exact.
 *
 * `invoices.paid_on` is the date paid that average days to pay counts from: the payment date of
 * the application that settled the invoice (set by the Invoice aggregate).
 */
export class CustomerSummary1763800400000 implements MigrationInterface {
  name = 'CustomerSummary1763800400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE invoices ADD COLUMN paid_on date`);
    await q.query(`
      UPDATE invoices i
         SET paid_on = COALESCE((SELECT MAX(p.payment_date)
                                   FROM payment_applications a
                                   JOIN payments p ON p.tenant_id = a.tenant_id AND p.id = a.payment_id
                                  WHERE a.tenant_id = i.tenant_id AND a.invoice_id = i.id AND a.reversed_at IS NULL),
                                (i.paid_at AT TIME ZONE 'UTC')::date, i.updated_at::date)
       WHERE i.status = 'paid'`);
    await q.query(`ALTER TABLE invoices ADD CONSTRAINT invoices_paid_on_check CHECK ((status = 'paid') = (paid_on IS NOT NULL))`);

    await q.query(`
      ALTER TABLE customers
        ADD COLUMN total_invoiced bigint NOT NULL DEFAULT 0,
        ADD COLUMN paid_invoice_count integer NOT NULL DEFAULT 0 CHECK (paid_invoice_count >= 0),
        ADD COLUMN paid_days_sum bigint NOT NULL DEFAULT 0,
        ADD COLUMN total_paid bigint NOT NULL DEFAULT 0,
        ADD COLUMN last_payment_id text,
        ADD COLUMN last_payment_date date`);
    await q.query(customerSummaryRefreshSql());

    // Invoices: Σ total of finalized, non-void invoices; count and Σ (paid_on − issue_date) of paid ones.
    // Not deferred: an invoice row is locked before its customer's everywhere (payments lock
    // invoices by id, then post to the customer's ledger), so taking the customer here keeps that order.
    await q.query(`
      CREATE FUNCTION invoices_customer_summary() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        old_invoiced bigint := 0; old_paid integer := 0; old_days bigint := 0;
        new_invoiced bigint := 0; new_paid integer := 0; new_days bigint := 0;
      BEGIN
        IF TG_OP <> 'INSERT' THEN
          IF OLD.finalized_at IS NOT NULL AND OLD.status <> 'void' THEN old_invoiced := OLD.total; END IF;
          IF OLD.status = 'paid' THEN old_paid := 1; old_days := OLD.paid_on - OLD.issue_date; END IF;
        END IF;
        IF TG_OP <> 'DELETE' THEN
          IF NEW.finalized_at IS NOT NULL AND NEW.status <> 'void' THEN new_invoiced := NEW.total; END IF;
          IF NEW.status = 'paid' THEN new_paid := 1; new_days := NEW.paid_on - NEW.issue_date; END IF;
        END IF;
        IF TG_OP = 'UPDATE' AND NEW.customer_id = OLD.customer_id THEN
          IF (new_invoiced, new_paid, new_days) <> (old_invoiced, old_paid, old_days) THEN
            UPDATE customers
               SET total_invoiced = total_invoiced + new_invoiced - old_invoiced,
                   paid_invoice_count = paid_invoice_count + new_paid - old_paid,
                   paid_days_sum = paid_days_sum + new_days - old_days
             WHERE tenant_id = NEW.tenant_id AND id = NEW.customer_id;
          END IF;
          RETURN NULL;
        END IF;
        IF TG_OP <> 'INSERT' AND (old_invoiced, old_paid, old_days) <> (0, 0, 0) THEN
          UPDATE customers
             SET total_invoiced = total_invoiced - old_invoiced, paid_invoice_count = paid_invoice_count - old_paid,
                 paid_days_sum = paid_days_sum - old_days
           WHERE tenant_id = OLD.tenant_id AND id = OLD.customer_id;
        END IF;
        IF TG_OP <> 'DELETE' AND (new_invoiced, new_paid, new_days) <> (0, 0, 0) THEN
          UPDATE customers
             SET total_invoiced = total_invoiced + new_invoiced, paid_invoice_count = paid_invoice_count + new_paid,
                 paid_days_sum = paid_days_sum + new_days
           WHERE tenant_id = NEW.tenant_id AND id = NEW.customer_id;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER invoices_customer_summary
        AFTER INSERT OR DELETE OR UPDATE OF customer_id, status, total, issue_date, paid_on, finalized_at ON invoices
        FOR EACH ROW EXECUTE FUNCTION invoices_customer_summary()`);

    // Payments: Σ amount received and the latest payment (payment_date, then id). Deferred to
    // commit: a payment is inserted before the invoices it pays are locked, and its customer must
    // be locked after them (lock order payment → invoices → customer).
    await q.query(`
      CREATE FUNCTION payments_customer_summary() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' AND OLD.customer_id IS NOT NULL THEN
          UPDATE customers c
             SET total_paid = c.total_paid - OLD.amount,
                 (last_payment_id, last_payment_date) =
                   (SELECT p.id, p.payment_date FROM payments p
                     WHERE p.tenant_id = c.tenant_id AND p.customer_id = c.id
                     ORDER BY p.payment_date DESC, p.id DESC LIMIT 1)
           WHERE c.tenant_id = OLD.tenant_id AND c.id = OLD.customer_id;
        END IF;
        IF TG_OP <> 'DELETE' AND NEW.customer_id IS NOT NULL THEN
          UPDATE customers c
             SET total_paid = c.total_paid + NEW.amount,
                 last_payment_id = CASE WHEN c.last_payment_id IS NULL OR (NEW.payment_date, NEW.id) > (c.last_payment_date, c.last_payment_id)
                                        THEN NEW.id ELSE c.last_payment_id END,
                 last_payment_date = CASE WHEN c.last_payment_id IS NULL OR (NEW.payment_date, NEW.id) > (c.last_payment_date, c.last_payment_id)
                                          THEN NEW.payment_date ELSE c.last_payment_date END
           WHERE c.tenant_id = NEW.tenant_id AND c.id = NEW.customer_id;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER payments_customer_summary
        AFTER INSERT OR DELETE OR UPDATE OF customer_id, amount, payment_date ON payments
        DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION payments_customer_summary()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER payments_customer_summary ON payments`);
    await q.query(`DROP FUNCTION payments_customer_summary()`);
    await q.query(`DROP TRIGGER invoices_customer_summary ON invoices`);
    await q.query(`DROP FUNCTION invoices_customer_summary()`);
    await q.query(`
      ALTER TABLE customers DROP COLUMN total_invoiced, DROP COLUMN paid_invoice_count, DROP COLUMN paid_days_sum,
        DROP COLUMN total_paid, DROP COLUMN last_payment_id, DROP COLUMN last_payment_date`);
    await q.query(`ALTER TABLE invoices DROP COLUMN paid_on`);
  }
}

/**
 * Recomputes the customers' summary columns from invoices and payments, set-wise: the
 * migration's backfill, and the seed's after loading with triggers off (`tenant`: a parameter
 * placeholder limiting it to one tenant).
 */
export function customerSummaryRefreshSql(tenant?: string): string {
  const only = (alias: string) => (tenant ? ` AND ${alias}tenant_id = ${tenant}` : '');
  return `
  UPDATE customers c
     SET total_invoiced = COALESCE(i.invoiced, 0), paid_invoice_count = COALESCE(i.paid, 0), paid_days_sum = COALESCE(i.days, 0),
         total_paid = COALESCE(p.paid, 0), last_payment_id = p.last_id, last_payment_date = p.last_date
    FROM customers c0
    LEFT JOIN (SELECT tenant_id, customer_id,
                      SUM(total) FILTER (WHERE finalized_at IS NOT NULL AND status <> 'void') AS invoiced,
                      COUNT(*) FILTER (WHERE status = 'paid') AS paid,
                      SUM(paid_on - issue_date) FILTER (WHERE status = 'paid') AS days
                 FROM invoices WHERE true${only('')} GROUP BY tenant_id, customer_id) i
      ON i.tenant_id = c0.tenant_id AND i.customer_id = c0.id
    LEFT JOIN (SELECT DISTINCT ON (tenant_id, customer_id) tenant_id, customer_id,
                      SUM(amount) OVER (PARTITION BY tenant_id, customer_id) AS paid, id AS last_id, payment_date AS last_date
                 FROM payments WHERE customer_id IS NOT NULL${only('')}
                ORDER BY tenant_id, customer_id, payment_date DESC, id DESC) p
      ON p.tenant_id = c0.tenant_id AND p.customer_id = c0.id
   WHERE c.tenant_id = c0.tenant_id AND c.id = c0.id${only('c0.')}`;
}
