import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A customer's total_paid and latest payment are moved once per INSERT statement and customer
 * (docs/adr/0042), as its invoice figures and balance are (migration 1764700000000): a bank import
 * group inserts ~200 payments in one statement, and the deferred row trigger ran one PL/pgSQL call
 * and one single-row `UPDATE customers` per payment at commit.
 *
 * It was deferred (migration 1763800400000) because a payment was inserted before the invoices it
 * pays were locked, and the customer must be locked after them (ADR 11). Since ADR 40 every payment
 * the service records is inserted once matching has locked and moved its invoices (one INSERT, the
 * group's too), so moving the customer at the INSERT keeps that order; the customers of a
 * statement are locked in (tenant, id) order. Updates (identification) and deletes keep the
 * deferred row triggers, and the same arithmetic: Σ amount, and the latest (payment_date, id).
 * down() restores the deferred row trigger for inserts.
 */
export class PaymentFiguresMovedPerStatement1764700000100 implements MigrationInterface {
  name = 'PaymentFiguresMovedPerStatement1764700000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER payments_customer_summary ON payments`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER payments_customer_summary
        AFTER DELETE ON payments
        DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION payments_customer_summary()`);
    await q.query(`
      CREATE FUNCTION payments_customer_summary_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        ts text[]; cs text[]; amounts bigint[]; last_ids text[]; last_dates date[];
      BEGIN
        SELECT array_agg(t ORDER BY t, c), array_agg(c ORDER BY t, c), array_agg(amount ORDER BY t, c),
               array_agg(last_id ORDER BY t, c), array_agg(last_date ORDER BY t, c)
          INTO ts, cs, amounts, last_ids, last_dates
          FROM (SELECT tenant_id AS t, customer_id AS c, SUM(amount)::bigint AS amount,
                       (array_agg(id ORDER BY payment_date DESC, id DESC))[1] AS last_id, MAX(payment_date) AS last_date
                  FROM new_rows WHERE customer_id IS NOT NULL GROUP BY tenant_id, customer_id) m;
        IF ts IS NULL THEN RETURN NULL; END IF;
        IF cardinality(ts) > 1 THEN
          PERFORM 1 FROM customers c JOIN unnest(ts, cs) AS m (t, id) ON c.tenant_id = m.t AND c.id = m.id
            ORDER BY c.tenant_id, c.id FOR NO KEY UPDATE OF c;
        END IF;
        UPDATE customers c
           SET total_paid = c.total_paid + m.amount,
               last_payment_id = CASE WHEN c.last_payment_id IS NULL OR (m.last_date, m.last_id) > (c.last_payment_date, c.last_payment_id)
                                      THEN m.last_id ELSE c.last_payment_id END,
               last_payment_date = CASE WHEN c.last_payment_id IS NULL OR (m.last_date, m.last_id) > (c.last_payment_date, c.last_payment_id)
                                        THEN m.last_date ELSE c.last_payment_date END
          FROM unnest(ts, cs, amounts, last_ids, last_dates) AS m (t, id, amount, last_id, last_date)
         WHERE c.tenant_id = m.t AND c.id = m.id;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER payments_customer_summary_insert AFTER INSERT ON payments
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION payments_customer_summary_rows()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER payments_customer_summary_insert ON payments`);
    await q.query(`DROP FUNCTION payments_customer_summary_rows()`);
    await q.query(`DROP TRIGGER payments_customer_summary ON payments`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER payments_customer_summary
        AFTER INSERT OR DELETE ON payments
        DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION payments_customer_summary()`);
  }
}
