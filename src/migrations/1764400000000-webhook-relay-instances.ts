import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per running webhook relay (ADR 34): `heartbeat_at` is refreshed every couple of
 * seconds. A lease (`webhook_deliveries.locked_by`) whose owner has not been heard from for
 * WEBHOOK_RELAY_DEAD_AFTER_MS belongs to a dead instance: it no longer counts against any
 * endpoint's in-flight cap, and the delivery is claimed again once its request could no longer
 * be running, instead of waiting for the full lease. Not tenant data: the relay serves all tenants.
 */
export class WebhookRelayInstances1764400000000 implements MigrationInterface {
  name = 'WebhookRelayInstances1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_relay_instances (
        owner text PRIMARY KEY CHECK (length(owner) <= 200),
        started_at timestamptz NOT NULL DEFAULT now(),
        heartbeat_at timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_relay_instances`);
  }
}
