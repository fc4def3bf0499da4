import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { TenantSettings } from '../domain/tenant-settings';
import { TenantSettingsRepository } from '../domain/tenant-settings.repository';

/** The channel on which a change to a tenant's settings is announced (payload: the tenant id). */
export const SETTINGS_CHANNEL = 'tenant_settings';

interface SettingsRow {
  tenant_id: string | null;
  timezone: string;
  amount: string;
  percent_scaled: string;
  payer_name_matching: boolean;
  reminders_enabled: boolean;
  reminder_days: number[];
}

const COLUMNS = `s.tenant_id, s.timezone, s.short_pay_tolerance_amount::text AS amount,
       (s.short_pay_tolerance_percent * 10000)::bigint::text AS percent_scaled,
       s.payer_name_matching, s.reminders_enabled, s.reminder_days`;

function toDomain(row: SettingsRow): TenantSettings {
  return TenantSettings.restore({
    timezone: row.timezone,
    shortPayAmount: Number(row.amount),
    shortPayPercentScaled: BigInt(row.percent_scaled),
    payerNameMatching: row.payer_name_matching,
    remindersEnabled: row.reminders_enabled,
    reminderDays: row.reminder_days,
  });
}

/** One row per tenant that changed its settings (`tenant_settings`); none means the defaults. */
@Injectable()
export class TypeormTenantSettingsRepository extends TenantSettingsRepository {
  private readonly savedListeners: ((tenantId: string) => void)[] = [];

  constructor(private readonly uow: UnitOfWork) {
    super();
  }

  onCommittedSave(listener: (tenantId: string) => void): void {
    this.savedListeners.push(listener);
  }

  async find(tenantId: string): Promise<TenantSettings> {
    const [row] = await this.uow.query<SettingsRow & { tenant: string }>(
      `SELECT t.id AS tenant, ${COLUMNS} FROM tenants t LEFT JOIN tenant_settings s ON s.tenant_id = t.id WHERE t.id = $1`,
      [tenantId],
    );
    if (!row) throw new NotFoundError('Tenant', tenantId);
    return row.tenant_id === null ? TenantSettings.defaults() : toDomain(row);
  }

  async findForUpdate(tenantId: string): Promise<TenantSettings> {
    // The row is created with the defaults first, so that there is always a row to lock.
    await this.uow.query(
      `INSERT INTO tenant_settings (tenant_id, updated_at) SELECT id, now() FROM tenants WHERE id = $1 ON CONFLICT (tenant_id) DO NOTHING`,
      [tenantId],
    );
    const [row] = await this.uow.query<SettingsRow>(`SELECT ${COLUMNS} FROM tenant_settings s WHERE s.tenant_id = $1 FOR UPDATE`, [tenantId]);
    if (!row) throw new NotFoundError('Tenant', tenantId);
    return toDomain(row);
  }

  async save(tenantId: string, settings: TenantSettings): Promise<void> {
    const s = settings.toState();
    // Update and notify in one round trip; the notification is delivered at commit, to every instance.
    await this.uow.query(
      `WITH saved AS (
         UPDATE tenant_settings
            SET timezone = $2, short_pay_tolerance_amount = $3, short_pay_tolerance_percent = $4::bigint / 10000.0,
                payer_name_matching = $5, reminders_enabled = $6, reminder_days = $7::integer[], updated_at = now()
          WHERE tenant_id = $1
          RETURNING tenant_id)
       SELECT pg_notify('${SETTINGS_CHANNEL}', tenant_id) FROM saved`,
      [tenantId, s.timezone, s.shortPayAmount, s.shortPayPercentScaled.toString(), s.payerNameMatching, s.remindersEnabled, s.reminderDays],
    );
    this.uow.afterCommit(() => this.savedListeners.forEach((listener) => listener(tenantId)));
  }

  async timeZonesInUse(): Promise<string[]> {
    const rows = await this.uow.query<{ timezone: string }>(`SELECT DISTINCT timezone FROM tenant_settings`);
    return [...new Set(['UTC', ...rows.map((r) => r.timezone)])].sort();
  }
}
