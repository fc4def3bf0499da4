import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A staged entry is updated once, when its part records it (`status`, `payment_id`); that update
 * was never HOT (ADR 0046): `status` is the predicate of bank_statement_entries_pending_idx, and
 * the rows were packed full, so each entry got a new version on another page and a new entry in the
 * primary key (bench: 16.7 against 5.5 µs per row, 200-row updates of a 100,000-entry import). The
 * worker now finds the next pending entries by the primary key from the position it has reached
 * (every entry before it is processed), which that partial index served; and pages are filled half
 * at staging, so each entry's second version fits beside the first.
 */
export class BankStatementEntriesUpdatedInPlace1764940000200 implements MigrationInterface {
  name = 'BankStatementEntriesUpdatedInPlace1764940000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX bank_statement_entries_pending_idx`);
    await q.query(`ALTER TABLE bank_statement_entries SET (fillfactor = 50)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE bank_statement_entries RESET (fillfactor)`);
    await q.query(`CREATE INDEX bank_statement_entries_pending_idx ON bank_statement_entries (tenant_id, statement_id, position) WHERE status = 'pending'`);
  }
}
