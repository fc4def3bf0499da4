/** What other modules may use from settings. */
export { SettingsModule } from './settings.module';
export { TenantCalendar, type LocalDates } from './domain/tenant-calendar';
export { TenantSettingsReader } from './domain/tenant-settings.reader';
export { TenantSettings, type TenantSettingsJson, type CashApplicationSettings, type ReminderSettings } from './domain/tenant-settings';
export { UpdateSettingsCommand } from './application/update-settings.command';
export { GetSettingsQuery } from './application/get-settings.query';
export { tenantTodaySql } from './infrastructure/cached-tenant-calendar';
