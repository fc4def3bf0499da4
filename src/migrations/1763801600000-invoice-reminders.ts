import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reminders (contract §16, ADR 24).
 * - `invoice_reminders`: one row per reminder sent, written in the transaction that writes its
 *   `invoice.reminder` outbox row. Its primary key is what makes a reminder go out at most once
 *   per invoice, due date and reminder day, whatever the code or the number of instances does;
 *   `sequence` (1 for an invoice's first reminder, 2 for its second…) is unique per invoice too.
 *   No foreign key to invoices: that table belongs to the invoicing module.
 * - `reminder_scans`: per tenant, the last local date all of whose reminders a complete scan has
 *   handled; the next scan covers the dates after it (catch-up after downtime).
 */
export class InvoiceReminders1763801600000 implements MigrationInterface {
  name = 'InvoiceReminders1763801600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE invoice_reminders (
        tenant_id text NOT NULL,
        invoice_id text NOT NULL,
        due_date date NOT NULL,
        days integer NOT NULL CHECK (days BETWEEN -365 AND 365),
        sequence integer NOT NULL CHECK (sequence >= 1),
        sent_on date NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, invoice_id, due_date, days),
        UNIQUE (tenant_id, invoice_id, sequence)
      )`);
    await q.query(`
      CREATE TABLE reminder_scans (
        tenant_id text PRIMARY KEY REFERENCES tenants (id),
        complete_through date NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE reminder_scans, invoice_reminders`);
  }
}
