import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events of a tenant without an enabled webhook endpoint are written published (ADR 0057): the
 * relay only ever marked them published (webhook_outbox_fan_out), a non-HOT update of every outbox
 * row with its primary key's new entry, after an entry in outbox_unpublished_idx and a row lock.
 *
 * `outbox_published_at(tenant)` answers the insert's published_at: now() when the tenant has no
 * enabled endpoint, null otherwise (the relay fans the event out as before). It takes a shared
 * transaction-scoped advisory lock of the tenant's endpoints first, and reads the endpoints after
 * it (a VOLATILE function's statements each take a fresh snapshot under READ COMMITTED), so an
 * endpoint that is created or enabled either committed before the read (seen: the event stays
 * unpublished) or waits for the event's transaction to end (its events committed before the
 * endpoint existed). Writes that make an endpoint enabled take that lock exclusively (the trigger
 * below). Under another isolation level the transaction's snapshot may predate the lock: null, the
 * relay's path.
 */
export class OutboxPublishedAtInsertWithoutEndpoints1765200200000 implements MigrationInterface {
  name = 'OutboxPublishedAtInsertWithoutEndpoints1765200200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION outbox_published_at(p_tenant text) RETURNS timestamptz LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        IF current_setting('transaction_isolation') <> 'read committed' THEN
          RETURN NULL;
        END IF;
        PERFORM pg_advisory_xact_lock_shared(hashtextextended('webhook-endpoints:' || p_tenant, 0));
        IF EXISTS (SELECT FROM webhook_endpoints e WHERE e.tenant_id = p_tenant AND e.status = 'enabled') THEN
          RETURN NULL;
        END IF;
        RETURN now();
      END
      $$`);
    await q.query(`
      CREATE FUNCTION webhook_endpoints_enabled_lock() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.status = 'enabled' AND (TG_OP = 'INSERT' OR NEW.tenant_id IS DISTINCT FROM OLD.tenant_id OR OLD.status IS DISTINCT FROM 'enabled') THEN
          PERFORM pg_advisory_xact_lock(hashtextextended('webhook-endpoints:' || NEW.tenant_id, 0));
        END IF;
        RETURN NEW;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER webhook_endpoints_enabled_lock BEFORE INSERT OR UPDATE ON webhook_endpoints
        FOR EACH ROW EXECUTE FUNCTION webhook_endpoints_enabled_lock()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER webhook_endpoints_enabled_lock ON webhook_endpoints`);
    await q.query(`DROP FUNCTION webhook_endpoints_enabled_lock(), outbox_published_at(text)`);
  }
}
