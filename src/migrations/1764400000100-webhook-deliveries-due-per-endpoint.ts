import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The fair claim (ADR 34) walks the endpoints and takes each one's earliest due deliveries:
 * this index answers that per endpoint without reading other endpoints' backlogs.
 */
export class WebhookDeliveriesDuePerEndpoint1764400000100 implements MigrationInterface {
  name = 'WebhookDeliveriesDuePerEndpoint1764400000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX webhook_deliveries_endpoint_due_idx ON webhook_deliveries (tenant_id, endpoint_id, next_attempt_at, id) WHERE status = 'pending'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_endpoint_due_idx`);
  }
}
