import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TenantSettingsJson, TenantSettingsPatch } from '../domain/tenant-settings';
import { TenantSettingsRepository } from '../domain/tenant-settings.repository';

export class UpdateSettingsCommand {
  /** `patch` may be a function of the current settings, computed under the row lock (the CLI's field-by-field changes). */
  constructor(
    readonly tenantId: string,
    readonly patch: TenantSettingsPatch | ((current: TenantSettingsJson) => TenantSettingsPatch),
  ) {}
}

/** PATCH /settings and the CLI: each named section replaced as a whole; concurrent changes queue on the row lock. */
@CommandHandler(UpdateSettingsCommand)
export class UpdateSettingsHandler implements ICommandHandler<UpdateSettingsCommand, TenantSettingsJson> {
  constructor(private readonly repository: TenantSettingsRepository) {}

  async execute({ tenantId, patch }: UpdateSettingsCommand): Promise<TenantSettingsJson> {
    const current = await this.repository.findForUpdate(tenantId);
    const next = current.patch(typeof patch === 'function' ? patch(current.toJSON()) : patch);
    if (!next.equals(current)) await this.repository.save(tenantId, next);
    return next.toJSON();
  }
}
