import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bank-file imports (contract §14).
 * - bank_statements: one row per import, its counters (the resource's figures) and the worker's
 *   lease: whichever instance holds an unexpired lease processes it; an expired lease (a crashed
 *   worker) is taken over, so an import always completes.
 * - bank_statement_entries: the file's credits, staged in the request's transaction while the file
 *   is parsed (nothing staged when the file is refused), then turned into payments group by group,
 *   each group in one transaction with its payments; `pending` until then.
 * - bank_entry_keys: every imported entry's identity within the tenant — the statement account
 *   with the bank's entry id, or its booking date, amount and position. Its primary key is what
 *   makes a re-posted file create nothing twice, even when two imports of it run at once.
 */
export class BankStatements1763801400100 implements MigrationInterface {
  name = 'BankStatements1763801400100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE bank_statements (
        tenant_id text NOT NULL REFERENCES tenants (id),
        id text NOT NULL,
        format text NOT NULL CHECK (format IN ('camt.053', 'camt.054', 'bai2', 'mt940', 'csv')),
        status text NOT NULL CHECK (status IN ('processing', 'completed')),
        entries_total integer NOT NULL CHECK (entries_total >= 0),
        entries_processed integer NOT NULL DEFAULT 0,
        payments_created integer NOT NULL DEFAULT 0,
        payments_existing integer NOT NULL DEFAULT 0,
        entries_skipped integer NOT NULL DEFAULT 0,
        matched integer NOT NULL DEFAULT 0,
        needs_review integer NOT NULL DEFAULT 0,
        unmatched integer NOT NULL DEFAULT 0,
        errors jsonb NOT NULL DEFAULT '[]'::jsonb,
        lease_owner text,
        lease_until timestamptz,
        created_at timestamptz NOT NULL,
        completed_at timestamptz,
        PRIMARY KEY (tenant_id, id),
        CONSTRAINT bank_statements_counts_add_up CHECK (
          payments_created + payments_existing + entries_skipped + jsonb_array_length(errors) <= entries_total
          AND entries_processed <= entries_total
          AND matched + needs_review + unmatched <= payments_created
          AND (status <> 'completed' OR (entries_processed = entries_total
               AND payments_created + payments_existing + entries_skipped + jsonb_array_length(errors) = entries_total
               AND matched + needs_review + unmatched = payments_created)))
      )`);
    await q.query(`CREATE INDEX bank_statements_created_idx ON bank_statements (tenant_id, created_at, id)`);
    await q.query(`CREATE INDEX bank_statements_processing_idx ON bank_statements (created_at) WHERE status = 'processing'`);

    await q.query(`
      CREATE TABLE bank_statement_entries (
        tenant_id text NOT NULL,
        statement_id text NOT NULL,
        position integer NOT NULL,
        account text NOT NULL,
        entry_key text NOT NULL,
        bank_entry_id text,
        amount bigint NOT NULL CHECK (amount > 0),
        currency text NOT NULL,
        booking_date date NOT NULL,
        method text NOT NULL,
        payer_name text,
        payer_account text,
        payer_bank_id text,
        reference text,
        remittance jsonb NOT NULL DEFAULT '[]'::jsonb,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'created', 'existing', 'rejected')),
        payment_id text,
        PRIMARY KEY (tenant_id, statement_id, position),
        FOREIGN KEY (tenant_id, statement_id) REFERENCES bank_statements (tenant_id, id)
      )`);
    await q.query(`CREATE INDEX bank_statement_entries_pending_idx ON bank_statement_entries (tenant_id, statement_id, position) WHERE status = 'pending'`);

    await q.query(`
      CREATE TABLE bank_entry_keys (
        tenant_id text NOT NULL,
        account text NOT NULL,
        entry_key text NOT NULL,
        statement_id text NOT NULL,
        position integer NOT NULL,
        payment_id text,
        PRIMARY KEY (tenant_id, account, entry_key),
        FOREIGN KEY (tenant_id, statement_id) REFERENCES bank_statements (tenant_id, id),
        FOREIGN KEY (tenant_id, payment_id) REFERENCES payments (tenant_id, id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE bank_entry_keys`);
    await q.query(`DROP TABLE bank_statement_entries`);
    await q.query(`DROP TABLE bank_statements`);
  }
}
