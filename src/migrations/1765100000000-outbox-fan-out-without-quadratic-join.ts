import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The relay's pass (`webhook_outbox_fan_out`, ADR 0050) answered each event of its batch with
 * whether the pass had marked it, by joining the batch to the rows its update returned. Both are
 * CTE scans with no index, estimated at a few rows (the outbox's statistics lag behind the queue),
 * so the plan was a nested loop that compared every event with every marked one: 39,800 rows
 * removed by the join filter for a batch of 200, about half of the pass's CPU (ADR 0051). An event
 * is marked exactly when its tenant has no enabled endpoint — the update's own condition, read in
 * the same statement and snapshot, on a row the pass holds locked — so the answer is built without
 * that join: the marked rows as the update returns them, then the others with their endpoints.
 * Same rows, same answers; settings unchanged. Derived from migration 1765000200000 (the latest
 * definition).
 */
export class OutboxFanOutWithoutQuadraticJoin1765100000000 implements MigrationInterface {
  name = 'OutboxFanOutWithoutQuadraticJoin1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION webhook_outbox_fan_out(p_limit integer)
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
        marked AS (
          UPDATE outbox o SET published_at = now() FROM batch b
           WHERE o.tenant_id = b.tenant_id AND o.id = b.id
             AND NOT EXISTS (SELECT FROM webhook_endpoints e WHERE e.tenant_id = b.tenant_id AND e.status = 'enabled')
          RETURNING o.tenant_id, o.id, o.type)
        -- Marked: every event of a tenant without an enabled endpoint (locked by this pass, so the
        -- update finds each). The others: one row per enabled endpoint of their tenant.
        SELECT m.tenant_id, m.id, m.type, true, NULL::text, NULL::text[] FROM marked m
        UNION ALL
        SELECT b.tenant_id, b.id, b.type, false, e.id, e.events
          FROM batch b JOIN webhook_endpoints e ON e.tenant_id = b.tenant_id AND e.status = 'enabled';
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION webhook_outbox_fan_out(p_limit integer)
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
}
