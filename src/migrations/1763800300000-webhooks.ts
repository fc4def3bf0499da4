import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook endpoints (subscriptions), their deliveries (one row per endpoint and event, the
 * relay's durable work queue) and the notices that make `invoice.overdue` fire once.
 */
export class Webhooks1763800300000 implements MigrationInterface {
  name = 'Webhooks1763800300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        tenant_id text NOT NULL REFERENCES tenants (id),
        id text NOT NULL,
        url text NOT NULL CHECK (length(url) <= 2048),
        events text[] NOT NULL CHECK (cardinality(events) > 0),
        description text,
        status text NOT NULL CHECK (status IN ('enabled', 'disabled')),
        disabled_reason text CHECK (disabled_reason IN ('manual', 'gone')),
        secret text NOT NULL,
        previous_secret text,
        previous_secret_expires_at timestamptz,
        version integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, id),
        CHECK ((status = 'disabled') = (disabled_reason IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX webhook_endpoints_list_idx ON webhook_endpoints (tenant_id, created_at, id)`);
    // The relay looks up the enabled endpoints of the tenants in each outbox batch.
    await q.query(`CREATE INDEX webhook_endpoints_enabled_idx ON webhook_endpoints (tenant_id) WHERE status = 'enabled'`);

    // locked_by/locked_until is the lease of the instance sending the current attempt; once it
    // has expired (the instance died) the row is claimable again. next_attempt_at is null once
    // the delivery is final.
    await q.query(`
      CREATE TABLE webhook_deliveries (
        tenant_id text NOT NULL,
        id text NOT NULL,
        endpoint_id text NOT NULL,
        event_id text NOT NULL,
        event_type text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        next_attempt_at timestamptz,
        locked_by text,
        locked_until timestamptz,
        last_attempt_at timestamptz,
        last_response_code integer,
        last_error text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, id),
        UNIQUE (tenant_id, endpoint_id, event_id),
        FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints (tenant_id, id) ON DELETE CASCADE,
        FOREIGN KEY (tenant_id, event_id) REFERENCES outbox (tenant_id, id) ON DELETE CASCADE,
        CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
        CHECK (locked_until IS NULL OR status = 'pending')
      )`);
    await q.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (locked_until) WHERE locked_until IS NOT NULL`);
    await q.query(`CREATE INDEX webhook_deliveries_list_idx ON webhook_deliveries (tenant_id, endpoint_id, created_at, id)`);

    // One row per invoice and due date that went overdue: inserting it (ON CONFLICT DO NOTHING)
    // is what lets the scheduled job emit invoice.overdue once, however many instances run it.
    // No foreign key to invoices: that table belongs to the invoicing module.
    await q.query(`
      CREATE TABLE invoice_overdue_notices (
        tenant_id text NOT NULL,
        invoice_id text NOT NULL,
        due_date date NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, invoice_id, due_date)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE invoice_overdue_notices, webhook_deliveries, webhook_endpoints`);
  }
}
