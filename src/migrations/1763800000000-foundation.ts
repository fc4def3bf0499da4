import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tenants, API clients, the transactional outbox, idempotency keys and rate-limit counters.
 * Every tenant-owned table leads its primary key with tenant_id (Citus-ready, see docs/scaling.md).
 */
export class Foundation1763800000000 implements MigrationInterface {
  name = 'Foundation1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE tenants (
        id text PRIMARY KEY,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE api_clients (
        tenant_id text NOT NULL REFERENCES tenants (id),
        id text NOT NULL,
        name text,
        secret_hash text NOT NULL,
        scopes text[] NOT NULL,
        rate_limit integer CHECK (rate_limit IS NULL OR rate_limit > 0),
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, id)
      )`);
    // Token requests name only the client id; ids are globally unique typeids.
    await q.query(`CREATE UNIQUE INDEX api_clients_id_key ON api_clients (id)`);
    await q.query(`
      CREATE TABLE system_settings (
        key text PRIMARY KEY,
        value text NOT NULL
      )`);
    await q.query(`
      CREATE TABLE outbox (
        tenant_id text NOT NULL,
        id text NOT NULL,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        type text NOT NULL,
        aggregate_type text NOT NULL,
        aggregate_id text NOT NULL,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        published_at timestamptz,
        PRIMARY KEY (tenant_id, id)
      )`);
    await q.query(`CREATE INDEX outbox_unpublished_idx ON outbox (seq) WHERE published_at IS NULL`);
    await q.query(`
      CREATE TABLE idempotency_keys (
        tenant_id text NOT NULL,
        key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
        request_hash text NOT NULL,
        response_status integer NOT NULL,
        response_body jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, key)
      )`);
    await q.query(`CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at)`);
    // The table layout rate-limiter-flexible's RateLimiterPostgres expects.
    await q.query(`
      CREATE TABLE rate_limits (
        key varchar(255) PRIMARY KEY,
        points integer NOT NULL DEFAULT 0,
        expire bigint
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE rate_limits, idempotency_keys, outbox, system_settings, api_clients, tenants`);
  }
}
