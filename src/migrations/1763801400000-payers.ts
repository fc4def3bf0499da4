import { MigrationInterface, QueryRunner } from 'typeorm';
import { normalizePayerName } from '../shared/domain/payer';

/**
 * Payers (contract §14). Payments gain who paid (`payer_*`), the bank's entry id and how their
 * customer was found (`customer_source`); a needs_review can now come from payer identification
 * (match_rule `payer_account` / `payer_name`). Customers gain the names and accounts they pay
 * under (`aliases`, `payer_accounts`, shown and replaced through the API), and
 * customer_payer_keys indexes every customer by its normalised name, aliases and accounts so a
 * payer is looked up with one index probe. The normalisation is TypeScript (one definition,
 * shared/domain/payer.ts): existing customers' name keys are computed here in batches.
 */
export class Payers1763801400000 implements MigrationInterface {
  name = 'Payers1763801400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE payments
        ADD COLUMN payer_name text,
        ADD COLUMN payer_account text,
        ADD COLUMN payer_bank_id text,
        ADD COLUMN bank_entry_id text,
        ADD COLUMN customer_source text
          CHECK (customer_source IN ('request', 'remittance', 'reference', 'payer_account', 'payer_name', 'manual'))`);
    await q.query(`ALTER TABLE payments DROP CONSTRAINT payments_match_rule_check`);
    await q.query(`
      ALTER TABLE payments ADD CONSTRAINT payments_match_rule_check
        CHECK (match_rule IN ('remittance', 'reference', 'exact_amount', 'combination', 'oldest_first', 'manual', 'payer_account', 'payer_name'))`);

    await q.query(`
      ALTER TABLE customers
        ADD COLUMN aliases text[] NOT NULL DEFAULT '{}',
        ADD COLUMN payer_accounts text[] NOT NULL DEFAULT '{}'`);
    await q.query(`
      CREATE TABLE customer_payer_keys (
        tenant_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('name', 'account')),
        key text NOT NULL,
        customer_id text NOT NULL,
        PRIMARY KEY (tenant_id, kind, key, customer_id),
        FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id)
      )`);
    await q.query(`CREATE INDEX customer_payer_keys_customer_idx ON customer_payer_keys (tenant_id, customer_id)`);

    let after = { tenant: '', id: '' };
    for (;;) {
      const rows: { tenant_id: string; id: string; name: string }[] = await q.query(
        `SELECT tenant_id, id, name FROM customers WHERE (tenant_id, id) > ($1, $2) ORDER BY tenant_id, id LIMIT 5000`,
        [after.tenant, after.id],
      );
      if (rows.length === 0) break;
      const keyed = rows.map((r) => ({ ...r, key: normalizePayerName(r.name) })).filter((r) => r.key !== null);
      await q.query(
        `INSERT INTO customer_payer_keys (tenant_id, kind, key, customer_id)
         SELECT t, 'name', k, c FROM unnest($1::text[], $2::text[], $3::text[]) AS u (t, k, c) ON CONFLICT DO NOTHING`,
        [keyed.map((r) => r.tenant_id), keyed.map((r) => r.key), keyed.map((r) => r.id)],
      );
      const last = rows[rows.length - 1];
      after = { tenant: last.tenant_id, id: last.id };
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE customer_payer_keys`);
    await q.query(`ALTER TABLE customers DROP COLUMN aliases, DROP COLUMN payer_accounts`);
    await q.query(`ALTER TABLE payments DROP CONSTRAINT payments_match_rule_check`);
    await q.query(`
      ALTER TABLE payments ADD CONSTRAINT payments_match_rule_check
        CHECK (match_rule IN ('remittance', 'reference', 'exact_amount', 'combination', 'oldest_first', 'manual'))`);
    await q.query(`ALTER TABLE payments DROP COLUMN payer_name, DROP COLUMN payer_account, DROP COLUMN payer_bank_id,
                   DROP COLUMN bank_entry_id, DROP COLUMN customer_source`);
  }
}
