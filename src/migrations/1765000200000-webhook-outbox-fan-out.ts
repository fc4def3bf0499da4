import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The relay's pass over the outbox in one round trip when the batch's tenants have no enabled
 * endpoint (ADR 0050): `webhook_outbox_fan_out(n)` locks the next `n` unpublished events (seq
 * order, SKIP LOCKED), marks published those of tenants without an enabled endpoint (nothing to
 * deliver), and returns the whole batch with each event's enabled endpoints, as the relay's batch
 * read did; the relay fans out the others in a transaction of its own, as before. The settings
 * the relay used to SET LOCAL for the pass are the function's: index scans only (the outbox is a
 * queue whose statistics lag behind it), generic plans (cached per connection by PL/pgSQL), and
 * no wait for the WAL flush at commit (a crash loses whole passes, fanned out again).
 */
export class WebhookOutboxFanOut1765000200000 implements MigrationInterface {
  name = 'WebhookOutboxFanOut1765000200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION webhook_outbox_fan_out(p_limit integer)
        RETURNS TABLE (event_tenant_id text, event_id text, event_type text, published boolean, endpoint_id text, filters text[])
        LANGUAGE plpgsql
        SET enable_seqscan = off SET enable_bitmapscan = off SET plan_cache_mode = force_generic_plan
      AS $$
      BEGIN
        -- Not in the SET list above: local to the calling transaction, so its commit does not wait.
        PERFORM set_config('synchronous_commit', 'off', true);
        RETURN QUERY
        WITH batch AS (
          SELECT o.tenant_id, o.id, o.type, o.seq FROM outbox o WHERE o.published_at IS NULL ORDER BY o.seq LIMIT p_limit FOR UPDATE SKIP LOCKED),
        alone AS (
          SELECT b.tenant_id, b.id FROM batch b
           WHERE NOT EXISTS (SELECT FROM webhook_endpoints e WHERE e.tenant_id = b.tenant_id AND e.status = 'enabled')),
        marked AS (
          UPDATE outbox o SET published_at = now() FROM alone a WHERE o.tenant_id = a.tenant_id AND o.id = a.id RETURNING o.tenant_id, o.id)
        SELECT b.tenant_id, b.id, b.type, m.id IS NOT NULL, e.id, e.events
          FROM batch b
          LEFT JOIN marked m ON m.tenant_id = b.tenant_id AND m.id = b.id
          LEFT JOIN webhook_endpoints e ON m.id IS NULL AND e.tenant_id = b.tenant_id AND e.status = 'enabled';
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION webhook_outbox_fan_out(integer)`);
  }
}
