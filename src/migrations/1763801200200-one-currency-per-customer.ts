import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A customer has one currency, and so do its invoices and payments (contract §6) — now in the
 * database, under any concurrency (issue 13 finding 2). The foreign keys from invoices and
 * payments to their customer include the currency: an insert checks it while holding the
 * customer row (FOR KEY SHARE), and a change of the customer's currency is refused while any
 * invoice or payment refers to it. Before, `POST /invoices` read the customer without a lock
 * and a concurrent `PATCH /customers/:id {currency}` could leave a EUR customer with a USD invoice.
 * They replace the (tenant_id, customer_id) keys they imply.
 */
export class OneCurrencyPerCustomer1763801200200 implements MigrationInterface {
  name = 'OneCurrencyPerCustomer1763801200200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE customers ADD CONSTRAINT customers_currency_key UNIQUE (tenant_id, id, currency)`);
    for (const table of ['invoices', 'payments']) {
      const [old] = await q.query(
        `SELECT conname FROM pg_constraint
          WHERE conrelid = $1::regclass AND contype = 'f' AND confrelid = 'customers'::regclass`,
        [table],
      );
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${old.conname}`);
      await q.query(`
        ALTER TABLE ${table} ADD CONSTRAINT ${table}_customer_currency_fkey
          FOREIGN KEY (tenant_id, customer_id, currency) REFERENCES customers (tenant_id, id, currency)`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['invoices', 'payments']) {
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_customer_currency_fkey`);
      await q.query(`ALTER TABLE ${table} ADD FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id)`);
    }
    await q.query(`ALTER TABLE customers DROP CONSTRAINT customers_currency_key`);
  }
}
