import { Module } from '@nestjs/common';
import { SettingsController } from './api/settings.controller';
import { GetSettingsHandler } from './application/get-settings.query';
import { UpdateSettingsHandler } from './application/update-settings.command';
import { TenantCalendar } from './domain/tenant-calendar';
import { TenantSettingsReader } from './domain/tenant-settings.reader';
import { TenantSettingsRepository } from './domain/tenant-settings.repository';
import { CachedTenantCalendar } from './infrastructure/cached-tenant-calendar';
import { TenantSettingsCache } from './infrastructure/tenant-settings.cache';
import { TypeormTenantSettingsRepository } from './infrastructure/typeorm-tenant-settings.repository';

/** Tenant settings (contract §13) and the tenant calendar every module asks for "today". */
@Module({
  controllers: [SettingsController],
  providers: [
    { provide: TenantSettingsRepository, useClass: TypeormTenantSettingsRepository },
    TenantSettingsCache,
    { provide: TenantSettingsReader, useExisting: TenantSettingsCache },
    { provide: TenantCalendar, useClass: CachedTenantCalendar },
    GetSettingsHandler,
    UpdateSettingsHandler,
  ],
  exports: [TenantCalendar, TenantSettingsReader],
})
export class SettingsModule {}
