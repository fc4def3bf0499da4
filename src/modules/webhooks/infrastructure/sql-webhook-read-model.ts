import { Injectable } from '@nestjs/common';
import { Page } from '../../../shared/domain/pagination';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { toPage } from '../../../shared/infrastructure/query/keyset';
import { DeliveryFilters, ListParams, WebhookReadModel } from '../application/webhook-read-model';
import { DELIVERY_COLUMNS, DeliveryView, ENDPOINT_COLUMNS, EndpointView, endpointViewFromRow, deliveryViewFromRow } from '../application/webhook.views';
import { createdAtKeyset } from './created-at.keyset';

@Injectable()
export class SqlWebhookReadModel extends WebhookReadModel {
  constructor(private readonly uow: UnitOfWork) {
    super();
  }

  async endpoint(tenantId: string, id: string): Promise<EndpointView | null> {
    const [row] = await this.uow.query(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
    return row ? endpointViewFromRow(row) : null;
  }

  async endpoints(tenantId: string, status: string | undefined, list: ListParams): Promise<Page<EndpointView>> {
    const sql: unknown[] = [tenantId, status ?? null];
    const page = createdAtKeyset(list, { status }, sql);
    const rows = await this.uow.query(
      `SELECT ${ENDPOINT_COLUMNS}, ${page.select} FROM webhook_endpoints
        WHERE tenant_id = $1 AND ($2::text IS NULL OR status = $2) AND ${page.where}
        ORDER BY ${page.orderBy} LIMIT ${page.keyset.limit + 1}`,
      sql,
    );
    return toPage(rows, page.keyset, endpointViewFromRow);
  }

  async deliveries(tenantId: string, endpointId: string, f: DeliveryFilters, list: ListParams): Promise<Page<DeliveryView> | null> {
    const sql: unknown[] = [tenantId, endpointId, f.statuses, f.eventType, f.eventId];
    const page = createdAtKeyset(list, { status: f.statuses ?? undefined, event_type: f.eventType ?? undefined, event_id: f.eventId ?? undefined }, sql);
    const [endpoint] = await this.uow.query(`SELECT 1 FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2`, [tenantId, endpointId]);
    if (!endpoint) return null;
    const rows = await this.uow.query(
      `SELECT ${DELIVERY_COLUMNS}, ${page.select} FROM webhook_deliveries
        WHERE tenant_id = $1 AND endpoint_id = $2
          AND ($3::text[] IS NULL OR status = ANY($3)) AND ($4::text IS NULL OR event_type = $4)
          AND ($5::text IS NULL OR event_id = $5) AND ${page.where}
        ORDER BY ${page.orderBy} LIMIT ${page.keyset.limit + 1}`,
      sql,
    );
    return toPage(rows, page.keyset, deliveryViewFromRow);
  }
}
