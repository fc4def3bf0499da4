import { Injectable } from '@nestjs/common';
import { ConflictError } from '../../../shared/domain/domain-error';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { WebhookEndpoint } from '../domain/webhook-endpoint.aggregate';
import { WebhookEndpointRepository } from '../domain/webhook-endpoint.repository';
import { WebhookEndpointMapper } from './webhook-endpoint.mapper';
import { WebhookEndpointOrmEntity } from './webhook-endpoint.orm-entity';

@Injectable()
export class TypeormWebhookEndpointRepository extends WebhookEndpointRepository {
  constructor(private readonly uow: UnitOfWork) {
    super();
  }

  async countForCreation(tenantId: string): Promise<number> {
    // Two statements: under READ COMMITTED the count must take its snapshot after the lock is held.
    await this.uow.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`webhook-endpoints:${tenantId}`]);
    const [row] = await this.uow.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints WHERE tenant_id = $1', [tenantId]);
    return row.n;
  }

  async findByIdForUpdate(tenantId: string, id: string): Promise<WebhookEndpoint | null> {
    const row = await this.uow
      .manager()
      .createQueryBuilder(WebhookEndpointOrmEntity, 'e')
      .where('e.tenant_id = :tenantId AND e.id = :id', { tenantId, id })
      .setLock('pessimistic_write')
      .getOne();
    return row ? WebhookEndpointMapper.toDomain(row) : null;
  }

  async save(endpoint: WebhookEndpoint): Promise<void> {
    const row = WebhookEndpointMapper.toPersistence(endpoint);
    const manager = this.uow.manager();
    if (endpoint.version === 0) {
      row.version = 1;
      await manager.insert(WebhookEndpointOrmEntity, row);
    } else {
      const { tenantId, id, version, createdAt: _createdAt, ...changes } = row;
      const result = await manager
        .createQueryBuilder()
        .update(WebhookEndpointOrmEntity)
        .set({ ...changes, version: version + 1 })
        .where('tenant_id = :tenantId AND id = :id AND version = :version', { tenantId, id, version })
        .execute();
      if (result.affected !== 1) throw new ConflictError(`Webhook endpoint ${id} was changed concurrently; retry.`);
    }
    endpoint.version += 1;
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    const result = await this.uow.manager().delete(WebhookEndpointOrmEntity, { tenantId, id });
    return (result.affected ?? 0) > 0;
  }

  async failPendingDeliveries(tenantId: string, endpointId: string, reason: string): Promise<void> {
    // Rows leased by a relay that is sending right now are left to it: it records its own result.
    await this.uow.query(
      `UPDATE webhook_deliveries
          SET status = 'failed', next_attempt_at = NULL, last_error = $3, updated_at = now()
        WHERE tenant_id = $1 AND endpoint_id = $2 AND status = 'pending'
          AND (locked_until IS NULL OR locked_until < now())`,
      [tenantId, endpointId, reason],
    );
  }
}
