import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A replay answers what the first request answered, headers included: the `ETag` of a created
 * invoice (contract §7, §11; issue 13 finding 10) is kept with the stored status and body.
 */
export class IdempotencyResponseHeaders1763801200100 implements MigrationInterface {
  name = 'IdempotencyResponseHeaders1763801200100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_keys ADD COLUMN response_headers jsonb NOT NULL DEFAULT '{}'::jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_keys DROP COLUMN response_headers`);
  }
}
