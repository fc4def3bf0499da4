import { MigrationInterface, QueryRunner } from 'typeorm';

/** The eight scopes that were "all scopes" before settings had any. */
const SCOPES_BEFORE = [
  'invoices:read', 'invoices:write', 'payments:read', 'payments:write',
  'customers:read', 'customers:write', 'webhooks:read', 'webhooks:write',
];

/**
 * Tenant settings (contract §13): one row per tenant that changed them; a tenant without a row
 * has the defaults, which the column defaults repeat. The percent keeps 4 decimal places
 * exactly (numeric), the amount is minor units. A client created with all scopes gets the two
 * new ones (a client created with fewer keeps what it had).
 */
export class TenantSettings1763801300000 implements MigrationInterface {
  name = 'TenantSettings1763801300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE tenant_settings (
        tenant_id text PRIMARY KEY REFERENCES tenants (id),
        timezone text NOT NULL DEFAULT 'UTC' CHECK (length(timezone) BETWEEN 1 AND 64),
        short_pay_tolerance_amount bigint NOT NULL DEFAULT 0 CHECK (short_pay_tolerance_amount BETWEEN 0 AND 1000000000000),
        short_pay_tolerance_percent numeric(7, 4) NOT NULL DEFAULT 0 CHECK (short_pay_tolerance_percent BETWEEN 0 AND 100),
        payer_name_matching boolean NOT NULL DEFAULT true,
        reminders_enabled boolean NOT NULL DEFAULT false,
        reminder_days integer[] NOT NULL DEFAULT '{-3,1,7,14,30}' CHECK (cardinality(reminder_days) <= 20),
        updated_at timestamptz NOT NULL
      )`);
    await q.query(
      `UPDATE api_clients SET scopes = scopes || ARRAY['settings:read', 'settings:write']
        WHERE scopes @> $1::text[] AND NOT scopes && ARRAY['settings:read', 'settings:write']`,
      [SCOPES_BEFORE],
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE api_clients SET scopes = array_remove(array_remove(scopes, 'settings:read'), 'settings:write')`);
    await q.query(`DROP TABLE tenant_settings`);
  }
}
