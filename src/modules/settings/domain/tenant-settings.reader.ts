import { TenantSettings } from './tenant-settings';

/**
 * How other modules read a tenant's settings (cash application's short-pay tolerance and
 * payer-name matching, reminders). Served from a per-instance cache that every instance drops
 * when the settings change, so a hot path costs no query.
 */
export abstract class TenantSettingsReader {
  abstract get(tenantId: string): Promise<TenantSettings>;
}
