import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TenantSettingsJson } from '../domain/tenant-settings';
import { TenantSettingsRepository } from '../domain/tenant-settings.repository';

export class GetSettingsQuery {
  constructor(readonly tenantId: string) {}
}

/** Read from the database, not the cache: a client reading back what it just changed sees it. */
@QueryHandler(GetSettingsQuery)
export class GetSettingsHandler implements IQueryHandler<GetSettingsQuery, TenantSettingsJson> {
  constructor(private readonly repository: TenantSettingsRepository) {}

  async execute({ tenantId }: GetSettingsQuery): Promise<TenantSettingsJson> {
    return (await this.repository.find(tenantId)).toJSON();
  }
}
