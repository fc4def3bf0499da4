import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An idempotent replay must not reveal a secret its resource no longer has (issue 12 finding
 * 17, docs/adr/0031): stored responses keep a secret's SHA-256 only. Responses stored before
 * this (webhook create and rotate-secret, the only ones with a top-level `secret`) lose theirs
 * here; a replay then shows the live secret while it is unchanged.
 */
export class IdempotencySecretsNotStored1764300000000 implements MigrationInterface {
  name = 'IdempotencySecretsNotStored1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_keys ADD COLUMN secret_sha256 text`);
    await q.query(`
      UPDATE idempotency_keys
         SET secret_sha256 = encode(sha256(convert_to(response_body->>'secret', 'UTF8')), 'hex'),
             response_body = jsonb_set(response_body, '{secret}', 'null'::jsonb)
       WHERE jsonb_typeof(response_body) = 'object' AND jsonb_typeof(response_body->'secret') = 'string'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_keys DROP COLUMN secret_sha256`);
  }
}
