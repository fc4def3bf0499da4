import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payments and their applications to invoices (contract §8).
 *
 * The database guards the cash-application invariants itself, whatever the code does:
 * - payments: amount > 0, 0 ≤ amount_applied ≤ amount, status consistent with the amounts;
 * - payment_applications: amount > 0, FKs (leading with tenant_id) to the payment and the invoice;
 * - a deferred constraint trigger checks at commit, for every payment and invoice whose
 *   applications changed, that amount_applied (payment) and amount_paid (invoice) equal the
 *   sum of their active applications. Together with invoices' CHECK (amount_paid ≤ total)
 *   that is the contract's "per invoice amount_paid = Σ applications ≤ total, per payment
 *   amount_applied = Σ applications ≤ amount" enforced by PostgreSQL.
 *
 * It also adds indexes on invoices for payments' read paths (reference numbers, exact amounts).
 */
export class Payments1763800200000 implements MigrationInterface {
  name = 'Payments1763800200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE payments (
        tenant_id text NOT NULL REFERENCES tenants (id),
        id text NOT NULL,
        customer_id text,
        amount bigint NOT NULL CHECK (amount > 0),
        amount_applied bigint NOT NULL DEFAULT 0,
        currency text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
        payment_date date NOT NULL,
        method text NOT NULL CHECK (method IN ('ach', 'wire', 'check', 'card', 'cash', 'other')),
        reference text,
        remittance jsonb NOT NULL DEFAULT '[]'::jsonb,
        status text NOT NULL CHECK (status IN ('unapplied', 'partially_applied', 'applied')),
        auto_match text NOT NULL CHECK (auto_match IN ('strict', 'oldest_first', 'none')),
        match_status text NOT NULL CHECK (match_status IN ('matched', 'partial', 'unmatched', 'needs_review')),
        match_rule text CHECK (match_rule IN ('remittance', 'reference', 'exact_amount', 'combination', 'oldest_first', 'manual')),
        match_suggestions jsonb NOT NULL DEFAULT '[]'::jsonb,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, id),
        FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id),
        CONSTRAINT payments_applied_within_amount CHECK (amount_applied >= 0 AND amount_applied <= amount),
        CONSTRAINT payments_status_follows_amounts CHECK (
          status = CASE WHEN amount_applied = 0 THEN 'unapplied' WHEN amount_applied = amount THEN 'applied' ELSE 'partially_applied' END)
      )`);
    // Keyset pagination: one (tenant_id, sort key, id) index per sort, and the common filters.
    await q.query(`CREATE INDEX payments_created_idx ON payments (tenant_id, created_at, id)`);
    await q.query(`CREATE INDEX payments_payment_date_idx ON payments (tenant_id, payment_date, id)`);
    await q.query(`CREATE INDEX payments_amount_idx ON payments (tenant_id, amount, id)`);
    await q.query(`CREATE INDEX payments_customer_idx ON payments (tenant_id, customer_id, created_at, id)`);
    await q.query(`CREATE INDEX payments_status_idx ON payments (tenant_id, status, created_at, id)`);
    // Unapplied cash per customer (balance, ar_summary.unapplied_payments).
    await q.query(`CREATE INDEX payments_unapplied_idx ON payments (tenant_id, customer_id) INCLUDE (amount, amount_applied) WHERE status <> 'applied'`);

    await q.query(`
      CREATE TABLE payment_applications (
        tenant_id text NOT NULL,
        id text NOT NULL,
        payment_id text NOT NULL,
        invoice_id text NOT NULL,
        amount bigint NOT NULL CHECK (amount > 0),
        source text NOT NULL CHECK (source IN ('auto', 'manual')),
        applied_at timestamptz NOT NULL,
        reversed_at timestamptz,
        PRIMARY KEY (tenant_id, id),
        FOREIGN KEY (tenant_id, payment_id) REFERENCES payments (tenant_id, id),
        FOREIGN KEY (tenant_id, invoice_id) REFERENCES invoices (tenant_id, id),
        CHECK (reversed_at IS NULL OR reversed_at >= applied_at)
      )`);
    await q.query(`CREATE INDEX payment_applications_payment_idx ON payment_applications (tenant_id, payment_id, applied_at, id)`);
    await q.query(`CREATE INDEX payment_applications_invoice_idx ON payment_applications (tenant_id, invoice_id, applied_at, id)`);

    // Σ active applications = amount_applied (payment) = amount_paid (invoice), checked at commit
    // for the rows whose applications changed (deferred: both sides are written in one transaction).
    await q.query(`
      CREATE FUNCTION payment_applications_balance_check() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        applied bigint;
        recorded bigint;
      BEGIN
        SELECT COALESCE(SUM(amount), 0) INTO applied FROM payment_applications
         WHERE tenant_id = NEW.tenant_id AND payment_id = NEW.payment_id AND reversed_at IS NULL;
        SELECT amount_applied INTO recorded FROM payments WHERE tenant_id = NEW.tenant_id AND id = NEW.payment_id;
        IF applied <> recorded THEN
          RAISE EXCEPTION 'payment %: applications sum to % but amount_applied is %', NEW.payment_id, applied, recorded
            USING ERRCODE = 'check_violation';
        END IF;
        SELECT COALESCE(SUM(amount), 0) INTO applied FROM payment_applications
         WHERE tenant_id = NEW.tenant_id AND invoice_id = NEW.invoice_id AND reversed_at IS NULL;
        SELECT amount_paid INTO recorded FROM invoices WHERE tenant_id = NEW.tenant_id AND id = NEW.invoice_id;
        IF applied <> recorded THEN
          RAISE EXCEPTION 'invoice %: applications sum to % but amount_paid is %', NEW.invoice_id, applied, recorded
            USING ERRCODE = 'check_violation';
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER payment_applications_balance
        AFTER INSERT OR UPDATE ON payment_applications
        DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION payment_applications_balance_check()`);
    // Applications are history: reversing sets reversed_at, rows are never deleted or re-pointed.
    await q.query(`
      CREATE FUNCTION payment_applications_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          RAISE EXCEPTION 'payment applications are never deleted; reverse them' USING ERRCODE = 'restrict_violation';
        END IF;
        IF (NEW.tenant_id, NEW.id, NEW.payment_id, NEW.invoice_id, NEW.amount, NEW.applied_at)
           IS DISTINCT FROM (OLD.tenant_id, OLD.id, OLD.payment_id, OLD.invoice_id, OLD.amount, OLD.applied_at)
           OR OLD.reversed_at IS NOT NULL THEN
          RAISE EXCEPTION 'a payment application can only be reversed, once' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER payment_applications_immutable
        BEFORE UPDATE OR DELETE ON payment_applications
        FOR EACH ROW EXECUTE FUNCTION payment_applications_immutable()`);

    // Reference matching finds invoices by number as people write it: alphanumerics only
    // (`inv000123` for INV-000123) and the digits of `<letters><separators><digits>` numbers
    // without leading zeros (`123`). Mirrors invoiceNumberKeys() in the payments domain.
    await q.query(`
      CREATE INDEX invoices_number_alnum_idx ON invoices (tenant_id, lower(regexp_replace(number, '[^A-Za-z0-9]', '', 'g')))`);
    await q.query(`
      CREATE INDEX invoices_number_digits_idx ON invoices
        (tenant_id, regexp_replace(substring(number from '^[A-Za-z]*[^A-Za-z0-9]*([0-9]+)$'), '^0+(?=[0-9])', ''))`);
    // exact_amount: the customer's open invoices with a given amount due.
    await q.query(`
      CREATE INDEX invoices_open_amount_due_idx ON invoices (tenant_id, customer_id, currency, amount_due)
        WHERE status IN ('open', 'partially_paid')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX invoices_open_amount_due_idx, invoices_number_digits_idx, invoices_number_alnum_idx`);
    await q.query(`DROP TABLE payment_applications, payments`);
    await q.query(`DROP FUNCTION payment_applications_balance_check(), payment_applications_immutable()`);
  }
}
