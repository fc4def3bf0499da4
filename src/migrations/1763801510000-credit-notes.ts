import { MigrationInterface, QueryRunner } from 'typeorm';
import { receivableTotalsGuardSql } from './1763801500000-write-offs';

/**
 * Credit notes (contract §15, ADR 23): `credit_notes` numbered CN-000001… per tenant (a counter row
 * like invoices'), their applications to invoices (facts, never changed), and the guards of ADR 17
 * on every row that holds a figure:
 * - a credit note's `amount_applied` = Σ its applications, `amount_refunded` = 0 until refunds come
 *   (a later migration), both ≥ 0 with `amount_applied + amount_refunded ≤ amount`, `status`
 *   following from them (void only with nothing used);
 * - an invoice's `amount_credited` = Σ the credit applied to it (check_invoice_figures now counts it);
 * - the customer's `total_credited` (AR summary) = Σ its credit notes that are not void, kept by a
 *   trigger and written by nothing else.
 * The key to the customer includes the currency (as invoices' and payments' do, migration
 * 1763801200200): a credit note is in its customer's one currency under any concurrency.
 * The ledger gains `credit_note` and `refund` lines and their sources.
 */
export class CreditNotes1763801510000 implements MigrationInterface {
  name = 'CreditNotes1763801510000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE ledger_entries
        DROP CONSTRAINT ledger_entries_type_check,
        DROP CONSTRAINT ledger_entries_source_type_check,
        ADD CONSTRAINT ledger_entries_type_check
          CHECK (type IN ('invoice', 'payment', 'void', 'write_off', 'adjustment', 'credit_note', 'refund')),
        ADD CONSTRAINT ledger_entries_source_type_check CHECK (source_type IN ('invoice', 'payment', 'credit_note', 'refund'))`);

    await q.query(`
      CREATE TABLE credit_note_number_counters (
        tenant_id text PRIMARY KEY REFERENCES tenants (id),
        last_value bigint NOT NULL
      )`);
    await q.query(`
      CREATE TABLE credit_notes (
        tenant_id text NOT NULL REFERENCES tenants (id),
        id text NOT NULL,
        number text NOT NULL,
        customer_id text NOT NULL,
        invoice_id text,
        status text NOT NULL CHECK (status IN ('open', 'partially_applied', 'applied', 'void')),
        currency text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
        amount bigint NOT NULL CHECK (amount > 0),
        amount_applied bigint NOT NULL DEFAULT 0,
        amount_refunded bigint NOT NULL DEFAULT 0,
        amount_remaining bigint GENERATED ALWAYS AS (amount - amount_applied - amount_refunded) STORED,
        reason text NOT NULL CHECK (reason IN ('duplicate', 'product_unsatisfactory', 'order_change', 'discount', 'other')),
        memo text,
        line_items jsonb NOT NULL DEFAULT '[]'::jsonb,
        voided_at timestamptz,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, id),
        CONSTRAINT credit_notes_number_key UNIQUE (tenant_id, number),
        CONSTRAINT credit_notes_customer_currency_fkey FOREIGN KEY (tenant_id, customer_id, currency) REFERENCES customers (tenant_id, id, currency),
        FOREIGN KEY (tenant_id, invoice_id) REFERENCES invoices (tenant_id, id),
        CONSTRAINT credit_notes_used_within_amount
          CHECK (amount_applied >= 0 AND amount_refunded >= 0 AND amount_applied + amount_refunded <= amount),
        CONSTRAINT credit_notes_status_follows_amounts CHECK (status = CASE
          WHEN voided_at IS NOT NULL THEN 'void'
          WHEN amount_applied + amount_refunded = 0 THEN 'open'
          WHEN amount_applied + amount_refunded = amount THEN 'applied'
          ELSE 'partially_applied' END),
        CONSTRAINT credit_notes_void_unused CHECK (voided_at IS NULL OR (amount_applied = 0 AND amount_refunded = 0))
      )`);
    // Keyset pages per sort and filter (tenant_id, …, sort key, id).
    await q.query(`CREATE INDEX credit_notes_created_idx ON credit_notes (tenant_id, created_at, id)`);
    await q.query(`CREATE INDEX credit_notes_amount_idx ON credit_notes (tenant_id, amount, id)`);
    await q.query(`CREATE INDEX credit_notes_customer_idx ON credit_notes (tenant_id, customer_id, created_at, id)`);
    await q.query(`CREATE INDEX credit_notes_invoice_idx ON credit_notes (tenant_id, invoice_id) WHERE invoice_id IS NOT NULL`);
    await q.query(`CREATE INDEX credit_notes_status_idx ON credit_notes (tenant_id, status, created_at, id)`);
    // The customer's credit left on notes (balance and statements read it like unapplied payments).
    await q.query(`
      CREATE INDEX credit_notes_remaining_idx ON credit_notes (tenant_id, customer_id) INCLUDE (amount_remaining)
        WHERE status IN ('open', 'partially_applied')`);

    await q.query(`
      CREATE TABLE credit_note_applications (
        tenant_id text NOT NULL,
        id text NOT NULL,
        credit_note_id text NOT NULL,
        invoice_id text NOT NULL,
        amount bigint NOT NULL CHECK (amount > 0),
        applied_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, id),
        FOREIGN KEY (tenant_id, credit_note_id) REFERENCES credit_notes (tenant_id, id),
        FOREIGN KEY (tenant_id, invoice_id) REFERENCES invoices (tenant_id, id)
      )`);
    await q.query(`CREATE INDEX credit_note_applications_note_idx ON credit_note_applications (tenant_id, credit_note_id, applied_at, id)`);
    await q.query(`CREATE INDEX credit_note_applications_invoice_idx ON credit_note_applications (tenant_id, invoice_id, applied_at, id)`);
    await q.query(`
      CREATE TRIGGER credit_note_applications_immutable BEFORE UPDATE OR DELETE ON credit_note_applications
        FOR EACH ROW EXECUTE FUNCTION immutable_fact()`);

    // ---- guards: each figure is the sum of its rows, at commit ---------------------------------------
    await q.query(`
      CREATE OR REPLACE FUNCTION check_invoice_figures(t text, row_id text) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        inv record;
        summed bigint;
      BEGIN
        IF current_setting('receivables.recount', true) = 'on' THEN RETURN; END IF; -- a load or recount checks set-wise
        SELECT amount_paid, amount_credited, amount_written_off INTO inv FROM invoices WHERE tenant_id = t AND id = row_id;
        IF NOT FOUND THEN RETURN; END IF;
        SELECT COALESCE(SUM(amount), 0) INTO summed FROM payment_applications
         WHERE tenant_id = t AND invoice_id = row_id AND reversed_at IS NULL;
        IF summed <> inv.amount_paid THEN
          RAISE EXCEPTION 'invoice %: amount_paid is % but its applications sum to %', row_id, inv.amount_paid, summed
            USING ERRCODE = 'check_violation', CONSTRAINT = 'invoice_figures';
        END IF;
        SELECT COALESCE(SUM(amount), 0) INTO summed FROM invoice_write_offs WHERE tenant_id = t AND invoice_id = row_id;
        IF summed <> inv.amount_written_off THEN
          RAISE EXCEPTION 'invoice %: amount_written_off is % but its write-offs sum to %', row_id, inv.amount_written_off, summed
            USING ERRCODE = 'check_violation', CONSTRAINT = 'invoice_figures';
        END IF;
        SELECT COALESCE(SUM(amount), 0) INTO summed FROM credit_note_applications WHERE tenant_id = t AND invoice_id = row_id;
        IF summed <> inv.amount_credited THEN
          RAISE EXCEPTION 'invoice %: amount_credited is % but the credit applied to it sums to %', row_id, inv.amount_credited, summed
            USING ERRCODE = 'check_violation', CONSTRAINT = 'invoice_figures';
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
        IF note.amount_refunded <> 0 THEN
          RAISE EXCEPTION 'credit note %: amount_refunded is % but nothing was refunded', row_id, note.amount_refunded
            USING ERRCODE = 'check_violation', CONSTRAINT = 'credit_note_figures';
        END IF;
      END $$`);
    await q.query(`
      CREATE FUNCTION credit_notes_figures_check() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM check_credit_note_figures(NEW.tenant_id, NEW.id);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER credit_notes_figures_insert AFTER INSERT ON credit_notes DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW WHEN (NEW.amount_applied <> 0 OR NEW.amount_refunded <> 0) EXECUTE FUNCTION credit_notes_figures_check()`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER credit_notes_figures_update AFTER UPDATE ON credit_notes DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW WHEN ((NEW.tenant_id, NEW.id, NEW.amount_applied, NEW.amount_refunded)
                           IS DISTINCT FROM (OLD.tenant_id, OLD.id, OLD.amount_applied, OLD.amount_refunded))
        EXECUTE FUNCTION credit_notes_figures_check()`);
    await q.query(`
      CREATE FUNCTION credit_note_applications_figures_check() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM check_credit_note_figures(NEW.tenant_id, NEW.credit_note_id);
        PERFORM check_invoice_figures(NEW.tenant_id, NEW.invoice_id);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER credit_note_applications_figures AFTER INSERT ON credit_note_applications DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION credit_note_applications_figures_check()`);

    // ---- customers.total_credited: Σ credit notes not void -------------------------------------------
    await q.query(`ALTER TABLE customers ADD COLUMN total_credited bigint NOT NULL DEFAULT 0 CHECK (total_credited >= 0)`);
    await q.query(`
      CREATE FUNCTION credit_notes_credited_figure() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        o bigint := 0;
        n bigint := 0;
      BEGIN
        IF TG_OP <> 'INSERT' AND OLD.voided_at IS NULL THEN o := OLD.amount; END IF;
        IF TG_OP <> 'DELETE' AND NEW.voided_at IS NULL THEN n := NEW.amount; END IF;
        IF TG_OP = 'UPDATE' AND (NEW.tenant_id, NEW.customer_id) = (OLD.tenant_id, OLD.customer_id) THEN
          IF n <> o THEN
            UPDATE customers SET total_credited = total_credited + n - o WHERE tenant_id = NEW.tenant_id AND id = NEW.customer_id;
          END IF;
          RETURN NULL;
        END IF;
        IF o <> 0 THEN
          UPDATE customers SET total_credited = total_credited - o WHERE tenant_id = OLD.tenant_id AND id = OLD.customer_id;
        END IF;
        IF n <> 0 THEN
          UPDATE customers SET total_credited = total_credited + n WHERE tenant_id = NEW.tenant_id AND id = NEW.customer_id;
        END IF;
        RETURN NULL;
      END $$`);
    // Not deferred: a credit note is written after the invoices it is applied to are locked, so the
    // customer is locked last (credit note → invoices → customer).
    await q.query(`
      CREATE TRIGGER credit_notes_credited_figure AFTER INSERT OR DELETE ON credit_notes
        FOR EACH ROW EXECUTE FUNCTION credit_notes_credited_figure()`);
    await q.query(`
      CREATE TRIGGER credit_notes_credited_figure_update AFTER UPDATE ON credit_notes
        FOR EACH ROW WHEN ((NEW.voided_at IS NULL) <> (OLD.voided_at IS NULL) OR NEW.amount <> OLD.amount
                           OR (NEW.tenant_id, NEW.customer_id) IS DISTINCT FROM (OLD.tenant_id, OLD.customer_id))
        EXECUTE FUNCTION credit_notes_credited_figure()`);
    await q.query(receivableTotalsGuardSql(['total_written_off', 'total_credited']));
  }

  /** Irreversible, like migration 1763801500000 whose guard function it replaces: restore a dump taken before it. */
  async down(): Promise<void> {
    throw new Error(`${this.name} cannot be reverted; restore a database dump taken before it`);
  }
}
