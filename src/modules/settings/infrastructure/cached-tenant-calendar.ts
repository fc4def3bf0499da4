import { Injectable } from '@nestjs/common';
import { BusinessTime, Clock } from '../../../shared/domain/clock';
import { LocalDates, TenantCalendar } from '../domain/tenant-calendar';
import { dateInTimeZone } from '../domain/time-zone';
import { TenantSettingsCache } from './tenant-settings.cache';

/** The tenant's date from the clock and the tenant's time zone (cached settings: no query on a hot path). */
@Injectable()
export class CachedTenantCalendar extends TenantCalendar {
  constructor(
    private readonly clock: Clock,
    private readonly settings: TenantSettingsCache,
  ) {
    super();
  }

  async today(tenantId: string): Promise<string> {
    return (await this.now(tenantId)).today;
  }

  async now(tenantId: string): Promise<BusinessTime> {
    const { timezone } = await this.settings.get(tenantId);
    const now = this.clock.now();
    return { now, today: dateInTimeZone(now, timezone) };
  }

  async localDates(): Promise<LocalDates> {
    const zones = await this.settings.timeZonesInUse();
    const now = this.clock.now();
    const dates = zones.map((zone) => dateInTimeZone(now, zone));
    return { zones, dates, latest: dates.reduce((a, b) => (a > b ? a : b)) };
  }
}

/**
 * SQL for a tenant's business date, for statements that scan all tenants at once: `zones` and
 * `dates` are the parameters holding LocalDates' arrays. A tenant without settings is on UTC.
 */
export function tenantTodaySql(tenantIdSql: string, zones: string, dates: string): string {
  return `(SELECT z.today FROM unnest(${zones}::text[], ${dates}::date[]) AS z (zone, today)
            WHERE z.zone = COALESCE((SELECT s.timezone FROM tenant_settings s WHERE s.tenant_id = ${tenantIdSql}), 'UTC'))`;
}
