import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An identity key is written once, when its entry claims it (ADR 0046). Each import group used to
 * insert its keys and then, in the same transaction, update every key it created with the new
 * payment's id: a second version of each row and, the row being the transaction's own, two more
 * foreign-key checks (bank_statements again, payments). The key already names its entry
 * (statement_id, position), and the entry holds the payment it became
 * (bank_statement_entries.payment_id): the key's copy of it was written and never read.
 */
export class BankEntryKeysWrittenOnce1764940000000 implements MigrationInterface {
  name = 'BankEntryKeysWrittenOnce1764940000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE bank_entry_keys DROP COLUMN payment_id`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE bank_entry_keys ADD COLUMN payment_id text, ADD FOREIGN KEY (tenant_id, payment_id) REFERENCES payments (tenant_id, id)`);
    await q.query(`
      UPDATE bank_entry_keys k SET payment_id = e.payment_id
        FROM bank_statement_entries e
       WHERE e.tenant_id = k.tenant_id AND e.statement_id = k.statement_id AND e.position = k.position AND e.payment_id IS NOT NULL`);
  }
}
