import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { NotFoundError, ValidationError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { Page } from '../../../shared/domain/pagination';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { toPage } from '../../../shared/infrastructure/query/keyset';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../domain/event-types';
import { createdAtKeyset, ListParams } from './keyset';
import { DELIVERY_COLUMNS, DeliveryView, deliveryViewFromRow } from './webhook.views';

const STATUSES = ['pending', 'succeeded', 'failed'];
const TYPES: readonly string[] = [...EVENT_TYPES, TEST_EVENT_TYPE];

export class ListWebhookDeliveriesQuery {
  constructor(
    readonly tenantId: string,
    readonly endpointId: string,
    readonly params: ListParams & { status?: string; event_type?: string; event_id?: string },
  ) {}
}

@Injectable()
@QueryHandler(ListWebhookDeliveriesQuery)
export class ListWebhookDeliveriesHandler implements IQueryHandler<ListWebhookDeliveriesQuery, Page<DeliveryView>> {
  constructor(private readonly uow: UnitOfWork) {}

  async execute({ tenantId, endpointId, params }: ListWebhookDeliveriesQuery): Promise<Page<DeliveryView>> {
    if (!isValidId(endpointId, 'wh')) throw new NotFoundError('Webhook endpoint', endpointId);
    const statuses = params.status === undefined ? null : [...new Set(params.status.split(',').map((s) => s.trim()))];
    if (statuses?.some((s) => !STATUSES.includes(s))) {
      throw ValidationError.field('status', `status must be a comma-separated list of ${STATUSES.join(', ')}`);
    }
    if (params.event_type !== undefined && !TYPES.includes(params.event_type)) {
      throw ValidationError.field('event_type', `event_type must be one of ${TYPES.join(', ')}`);
    }
    const filters = { status: statuses?.sort(), event_type: params.event_type, event_id: params.event_id };
    const sql: unknown[] = [tenantId, endpointId, statuses, params.event_type ?? null, params.event_id ?? null];
    const page = createdAtKeyset(params, filters, sql);
    const [endpoint] = await this.uow.query(`SELECT 1 FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2`, [tenantId, endpointId]);
    if (!endpoint) throw new NotFoundError('Webhook endpoint', endpointId);
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
