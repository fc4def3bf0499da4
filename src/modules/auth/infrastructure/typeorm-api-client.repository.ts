import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { ApiClient, Tenant } from '../domain/api-client';
import { ApiClientRepository } from '../domain/api-client.repository';
import { Scope } from '../domain/scopes';
import { ApiClientOrmEntity } from './api-client.orm-entity';
import { TenantOrmEntity } from './tenant.orm-entity';

@Injectable()
export class TypeormApiClientRepository extends ApiClientRepository {
  constructor(private readonly uow: UnitOfWork) {
    super();
  }

  async findClient(clientId: string): Promise<ApiClient | null> {
    // Client ids are globally unique (typeid), so the lookup that authenticates needs no tenant.
    const row = await this.uow.manager().findOne(ApiClientOrmEntity, { where: { id: clientId } });
    return row ? { ...row, scopes: row.scopes as Scope[] } : null;
  }

  async insertClient(client: ApiClient): Promise<void> {
    await this.uow.manager().insert(ApiClientOrmEntity, client);
  }

  async revokeClient(clientId: string, at: Date): Promise<boolean> {
    const result = await this.uow
      .manager()
      .createQueryBuilder()
      .update(ApiClientOrmEntity)
      .set({ revokedAt: at })
      .where('id = :clientId AND revoked_at IS NULL', { clientId })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  findTenant(tenantId: string): Promise<Tenant | null> {
    return this.uow.manager().findOne(TenantOrmEntity, { where: { id: tenantId } });
  }

  async insertTenant(tenant: Tenant): Promise<void> {
    await this.uow.manager().insert(TenantOrmEntity, tenant);
  }

  countTenants(): Promise<number> {
    return this.uow.manager().count(TenantOrmEntity);
  }
}
