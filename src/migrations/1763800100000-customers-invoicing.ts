import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Customers, invoices, per-tenant invoice numbers and the receivables ledger.
 *
 * Every key leads with tenant_id. Each list sort has a (tenant_id, sort column, id) index
 * so keyset pages are index range scans whatever their depth. customers carries two
 * denormalised figures so customer lists can be sorted and keyset-paginated by them:
 * `balance` (the ledger sum, moved by every ledger insert in the same statement) and
 * `overdue_amount` / `overdue_invoice_count` (recomputed from the customer's open invoices
 * whenever one is saved; since "overdue" also changes with the calendar, `overdue_refresh_on`
 * is the day the figures next go stale and reads refresh the stale rows first).
 */
export class CustomersInvoicing1763800100000 implements MigrationInterface {
  name = 'CustomersInvoicing1763800100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE customers (
        tenant_id text NOT NULL REFERENCES tenants (id),
        id text NOT NULL,
        name text NOT NULL,
        email text,
        external_id text,
        phone text,
        billing_address jsonb,
        currency text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
        payment_terms_days integer NOT NULL DEFAULT 30 CHECK (payment_terms_days BETWEEN 0 AND 365),
        credit_limit bigint CHECK (credit_limit IS NULL OR credit_limit >= 0),
        credit_hold boolean NOT NULL DEFAULT false,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        balance bigint NOT NULL DEFAULT 0,
        overdue_amount bigint NOT NULL DEFAULT 0 CHECK (overdue_amount >= 0),
        overdue_invoice_count integer NOT NULL DEFAULT 0,
        overdue_refresh_on date,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, id),
        CONSTRAINT customers_external_id_key UNIQUE (tenant_id, external_id)
      )`);
    await q.query(`CREATE INDEX customers_created_idx ON customers (tenant_id, created_at, id)`);
    await q.query(`CREATE INDEX customers_name_idx ON customers (tenant_id, name, id)`);
    await q.query(`CREATE INDEX customers_balance_idx ON customers (tenant_id, balance, id)`);
    await q.query(`CREATE INDEX customers_overdue_idx ON customers (tenant_id, overdue_amount, id)`);
    await q.query(`CREATE INDEX customers_email_idx ON customers (tenant_id, lower(email))`);
    await q.query(`CREATE INDEX customers_refresh_idx ON customers (tenant_id, overdue_refresh_on) WHERE overdue_refresh_on IS NOT NULL`);

    await q.query(`
      CREATE TABLE invoices (
        tenant_id text NOT NULL,
        id text NOT NULL,
        number text NOT NULL,
        customer_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('draft', 'open', 'partially_paid', 'paid', 'void', 'uncollectible')),
        currency text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
        issue_date date NOT NULL,
        due_date date NOT NULL,
        po_number text,
        memo text,
        line_items jsonb NOT NULL,
        subtotal bigint NOT NULL,
        discount_total bigint NOT NULL,
        tax_total bigint NOT NULL,
        total bigint NOT NULL CHECK (total >= 0),
        amount_paid bigint NOT NULL DEFAULT 0,
        amount_due bigint GENERATED ALWAYS AS (total - amount_paid) STORED,
        dispute_status text CHECK (dispute_status IN ('open', 'resolved')),
        dispute_reason text,
        dispute_amount bigint,
        dispute_opened_at timestamptz,
        dispute_resolved_at timestamptz,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        finalized_at timestamptz,
        paid_at timestamptz,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, id),
        FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id),
        CHECK (due_date >= issue_date),
        CHECK (subtotal - discount_total + tax_total = total),
        -- The invariant payments rely on: never more applied than the total.
        CHECK (amount_paid >= 0 AND amount_paid <= total),
        CHECK (status NOT IN ('draft', 'void') OR amount_paid = 0),
        CHECK (status <> 'paid' OR amount_paid = total)
      )`);
    // Numbers are unique per tenant regardless of case (payments match them case-insensitively).
    await q.query(`CREATE UNIQUE INDEX invoices_number_key ON invoices (tenant_id, lower(number))`);
    await q.query(`CREATE INDEX invoices_created_idx ON invoices (tenant_id, created_at, id)`);
    await q.query(`CREATE INDEX invoices_issue_date_idx ON invoices (tenant_id, issue_date, id)`);
    await q.query(`CREATE INDEX invoices_due_date_idx ON invoices (tenant_id, due_date, id)`);
    await q.query(`CREATE INDEX invoices_number_idx ON invoices (tenant_id, number, id)`);
    await q.query(`CREATE INDEX invoices_total_idx ON invoices (tenant_id, total, id)`);
    await q.query(`CREATE INDEX invoices_amount_due_idx ON invoices (tenant_id, amount_due, id)`);
    await q.query(`CREATE INDEX invoices_customer_idx ON invoices (tenant_id, customer_id, created_at, id)`);
    // Open receivables per customer: aging, overdue figures and payment matching candidates.
    await q.query(`
      CREATE INDEX invoices_open_idx ON invoices (tenant_id, customer_id, currency, due_date, id)
        INCLUDE (total, amount_paid) WHERE status IN ('open', 'partially_paid')`);

    await q.query(`
      CREATE TABLE invoice_number_counters (
        tenant_id text PRIMARY KEY REFERENCES tenants (id),
        last_value bigint NOT NULL
      )`);

    await q.query(`
      CREATE TABLE ledger_entries (
        tenant_id text NOT NULL,
        id text NOT NULL,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        customer_id text NOT NULL,
        entry_date date NOT NULL,
        type text NOT NULL CHECK (type IN ('invoice', 'payment', 'void', 'write_off', 'adjustment')),
        source_type text NOT NULL CHECK (source_type IN ('invoice', 'payment')),
        source_id text NOT NULL,
        reference text,
        description text NOT NULL,
        debit bigint NOT NULL DEFAULT 0 CHECK (debit >= 0),
        credit bigint NOT NULL DEFAULT 0 CHECK (credit >= 0),
        created_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, id),
        FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id),
        CHECK (debit = 0 OR credit = 0)
      )`);
    // Statements read a customer's entries by date; seq keeps same-day entries in posting order.
    await q.query(`CREATE INDEX ledger_entries_customer_idx ON ledger_entries (tenant_id, customer_id, entry_date, seq)`);
    await q.query(`CREATE INDEX ledger_entries_source_idx ON ledger_entries (tenant_id, source_type, source_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ledger_entries, invoice_number_counters, invoices, customers`);
  }
}
