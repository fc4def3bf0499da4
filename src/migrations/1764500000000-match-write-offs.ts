import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Short-pay tolerance (contract §13, ADR 0036): a payment records the write-offs automatic
 * matching made to settle a short pay (`match.write_offs`). The write-offs themselves are
 * `invoice_write_offs` rows (reason `short_pay`); this is the payment's own record of them, so
 * a payment read stays one row. Existing payments made none.
 */
export class MatchWriteOffs1764500000000 implements MigrationInterface {
  name = 'MatchWriteOffs1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE payments ADD COLUMN match_write_offs jsonb NOT NULL DEFAULT '[]'::jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE payments DROP COLUMN match_write_offs`);
  }
}
