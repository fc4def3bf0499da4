import { DisabledReason, EndpointStatus, WebhookEndpoint } from '../domain/webhook-endpoint.aggregate';
import { WebhookEndpointOrmEntity } from './webhook-endpoint.orm-entity';

export const WebhookEndpointMapper = {
  toDomain(row: WebhookEndpointOrmEntity): WebhookEndpoint {
    return WebhookEndpoint.restore({
      id: row.id,
      tenantId: row.tenantId,
      url: row.url,
      events: row.events,
      description: row.description,
      status: row.status as EndpointStatus,
      disabledReason: row.disabledReason as DisabledReason | null,
      secret: row.secret,
      previousSecret: row.previousSecret,
      previousSecretExpiresAt: row.previousSecretExpiresAt,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      version: row.version,
    });
  },

  toPersistence(endpoint: WebhookEndpoint): WebhookEndpointOrmEntity {
    const p = endpoint.snapshot();
    return Object.assign(new WebhookEndpointOrmEntity(), {
      tenantId: p.tenantId,
      id: p.id,
      url: p.url,
      events: p.events,
      description: p.description,
      status: p.status,
      disabledReason: p.disabledReason,
      secret: p.secret,
      previousSecret: p.previousSecret,
      previousSecretExpiresAt: p.previousSecretExpiresAt,
      version: p.version,
      createdAt: p.createdAt,
      updatedAt: p.updatedAt,
    });
  },
};
