import { MigrationInterface, QueryRunner } from 'typeorm';
import { receivableTotalsGuardSql } from './1763801500000-write-offs';

/**
 * Refunds (contract §15, ADR 23): money paid back out of a payment's unapplied amount or a credit
 * note's remaining credit. `refunds` rows are facts (never changed), each of exactly one owner.
 * - payments gain `amount_refunded`; `amount_applied + amount_refunded ≤ amount`, and `status`
 *   follows what is used (applied or refunded): none — unapplied, all — applied, some — partially;
 * - the commit-time guards (ADR 17) check `amount_refunded` = Σ refunds on every payment and credit
 *   note whose figures changed and for every refund written;
 * - customers gain `total_refunded` (AR summary), kept by a trigger on refunds and written by
 *   nothing else.
 */
export class Refunds1763801520000 implements MigrationInterface {
  name = 'Refunds1763801520000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE payments
        ADD COLUMN amount_refunded bigint NOT NULL DEFAULT 0,
        DROP CONSTRAINT payments_applied_within_amount,
        DROP CONSTRAINT payments_status_follows_amounts,
        ADD CONSTRAINT payments_used_within_amount
          CHECK (amount_applied >= 0 AND amount_refunded >= 0 AND amount_applied + amount_refunded <= amount),
        ADD CONSTRAINT payments_status_follows_amounts CHECK (status = CASE
          WHEN amount_applied + amount_refunded = 0 THEN 'unapplied'
          WHEN amount_applied + amount_refunded = amount THEN 'applied'
          ELSE 'partially_applied' END)`);

    await q.query(`
      CREATE TABLE refunds (
        tenant_id text NOT NULL REFERENCES tenants (id),
        id text NOT NULL,
        payment_id text,
        credit_note_id text,
        customer_id text NOT NULL,
        currency text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
        amount bigint NOT NULL CHECK (amount > 0),
        reason text,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, id),
        FOREIGN KEY (tenant_id, payment_id) REFERENCES payments (tenant_id, id),
        FOREIGN KEY (tenant_id, credit_note_id) REFERENCES credit_notes (tenant_id, id),
        CONSTRAINT refunds_customer_currency_fkey FOREIGN KEY (tenant_id, customer_id, currency) REFERENCES customers (tenant_id, id, currency),
        CONSTRAINT refunds_one_owner CHECK ((payment_id IS NULL) <> (credit_note_id IS NULL))
      )`);
    await q.query(`CREATE INDEX refunds_payment_idx ON refunds (tenant_id, payment_id, created_at, id) WHERE payment_id IS NOT NULL`);
    await q.query(`CREATE INDEX refunds_credit_note_idx ON refunds (tenant_id, credit_note_id, created_at, id) WHERE credit_note_id IS NOT NULL`);
    await q.query(`CREATE INDEX refunds_customer_idx ON refunds (tenant_id, customer_id, created_at, id)`);
    await q.query(`CREATE TRIGGER refunds_immutable BEFORE UPDATE OR DELETE ON refunds FOR EACH ROW EXECUTE FUNCTION immutable_fact()`);

    // ---- guards ----------------------------------------------------------------------------------
    await q.query(`
      CREATE OR REPLACE FUNCTION check_payment_figures(t text, row_id text) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        pay record;
        summed bigint;
      BEGIN
        IF current_setting('receivables.recount', true) = 'on' THEN RETURN; END IF; -- a load or recount checks set-wise
        SELECT amount_applied, amount_refunded INTO pay FROM payments WHERE tenant_id = t AND id = row_id;
        IF NOT FOUND THEN RETURN; END IF;
        SELECT COALESCE(SUM(amount), 0) INTO summed FROM payment_applications
         WHERE tenant_id = t AND payment_id = row_id AND reversed_at IS NULL;
        IF summed <> pay.amount_applied THEN
          RAISE EXCEPTION 'payment %: amount_applied is % but its applications sum to %', row_id, pay.amount_applied, summed
            USING ERRCODE = 'check_violation', CONSTRAINT = 'payment_figures';
        END IF;
        SELECT COALESCE(SUM(amount), 0) INTO summed FROM refunds WHERE tenant_id = t AND payment_id = row_id;
        IF summed <> pay.amount_refunded THEN
          RAISE EXCEPTION 'payment %: amount_refunded is % but its refunds sum to %', row_id, pay.amount_refunded, summed
            USING ERRCODE = 'check_violation', CONSTRAINT = 'payment_figures';
        END IF;
      END $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION check_credit_note_figures(t text, row_id text) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        note record;
        summed bigint;
      BEGIN
        IF current_setting('receivables.recount', true) = 'on' THEN RETURN; END IF;
        SELECT amount_applied, amount_refunded INTO note FROM credit_notes WHERE tenant_id = t AND id = row_id;
        IF NOT FOUND THEN RETURN; END IF;
        SELECT COALESCE(SUM(amount), 0) INTO summed FROM credit_note_applications WHERE tenant_id = t AND credit_note_id = row_id;
        IF summed <> note.amount_applied THEN
          RAISE EXCEPTION 'credit note %: amount_applied is % but its applications sum to %', row_id, note.amount_applied, summed
            USING ERRCODE = 'check_violation', CONSTRAINT = 'credit_note_figures';
        END IF;
        SELECT COALESCE(SUM(amount), 0) INTO summed FROM refunds WHERE tenant_id = t AND credit_note_id = row_id;
        IF summed <> note.amount_refunded THEN
          RAISE EXCEPTION 'credit note %: amount_refunded is % but its refunds sum to %', row_id, note.amount_refunded, summed
            USING ERRCODE = 'check_violation', CONSTRAINT = 'credit_note_figures';
        END IF;
      END $$`);
    await q.query(`DROP TRIGGER payments_figures_insert ON payments`);
    await q.query(`DROP TRIGGER payments_figures_update ON payments`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER payments_figures_insert AFTER INSERT ON payments DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW WHEN (NEW.amount_applied <> 0 OR NEW.amount_refunded <> 0) EXECUTE FUNCTION payments_figures_check()`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER payments_figures_update AFTER UPDATE ON payments DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW WHEN ((NEW.tenant_id, NEW.id, NEW.amount_applied, NEW.amount_refunded)
                           IS DISTINCT FROM (OLD.tenant_id, OLD.id, OLD.amount_applied, OLD.amount_refunded))
        EXECUTE FUNCTION payments_figures_check()`);
    await q.query(`
      CREATE FUNCTION refunds_figures_check() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.payment_id IS NOT NULL THEN PERFORM check_payment_figures(NEW.tenant_id, NEW.payment_id); END IF;
        IF NEW.credit_note_id IS NOT NULL THEN PERFORM check_credit_note_figures(NEW.tenant_id, NEW.credit_note_id); END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER refunds_figures AFTER INSERT ON refunds DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION refunds_figures_check()`);

    // ---- customers.total_refunded: Σ refunds -----------------------------------------------------------
    await q.query(`ALTER TABLE customers ADD COLUMN total_refunded bigint NOT NULL DEFAULT 0 CHECK (total_refunded >= 0)`);
    // Not deferred: a refund is written after its payment or credit note is locked; the customer is locked last.
    await q.query(`
      CREATE FUNCTION refunds_refunded_figure() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE customers SET total_refunded = total_refunded + NEW.amount WHERE tenant_id = NEW.tenant_id AND id = NEW.customer_id;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER refunds_refunded_figure AFTER INSERT ON refunds FOR EACH ROW EXECUTE FUNCTION refunds_refunded_figure()`);
    await q.query(receivableTotalsGuardSql(['total_written_off', 'total_credited', 'total_refunded']));
  }

  /** Irreversible, like the migrations whose guard functions it replaces: restore a dump taken before it. */
  async down(): Promise<void> {
    throw new Error(`${this.name} cannot be reverted; restore a database dump taken before it`);
  }
}
