import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Outbox pages filled to half (ADR 0050): the relay marks every row published within about a
 * pass interval of its insert, and that update can never be HOT (published_at is in the predicate
 * of outbox_unpublished_idx, which the relay needs to find unpublished rows). With full pages the
 * new version of each row (about 1.3 kB, its payload inline) went to another page: written whole
 * to the WAL, a second page dirtied, the table extended. With room left on the row's own page the
 * new version stays there and its WAL record carries only the changed bytes. New pages only: rows
 * already stored stay where they are.
 */
export class OutboxFillfactor1765000200100 implements MigrationInterface {
  name = 'OutboxFillfactor1765000200100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE outbox SET (fillfactor = 50)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE outbox RESET (fillfactor)`);
  }
}
