import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Page } from '../../../shared/domain/pagination';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { toPage } from '../../../shared/infrastructure/query/keyset';
import { parseEndpointStatus } from '../domain/webhook-endpoint.aggregate';
import { createdAtKeyset, ListParams } from './keyset';
import { ENDPOINT_COLUMNS, EndpointView, endpointViewFromRow } from './webhook.views';

export class ListWebhookEndpointsQuery {
  constructor(
    readonly tenantId: string,
    readonly params: ListParams & { status?: string },
  ) {}
}

@Injectable()
@QueryHandler(ListWebhookEndpointsQuery)
export class ListWebhookEndpointsHandler implements IQueryHandler<ListWebhookEndpointsQuery, Page<EndpointView>> {
  constructor(private readonly uow: UnitOfWork) {}

  async execute({ tenantId, params }: ListWebhookEndpointsQuery): Promise<Page<EndpointView>> {
    const status = params.status === undefined ? undefined : parseEndpointStatus(params.status);
    const sql: unknown[] = [tenantId, status ?? null];
    const page = createdAtKeyset(params, { status }, sql);
    const rows = await this.uow.query(
      `SELECT ${ENDPOINT_COLUMNS}, ${page.select} FROM webhook_endpoints
        WHERE tenant_id = $1 AND ($2::text IS NULL OR status = $2) AND ${page.where}
        ORDER BY ${page.orderBy} LIMIT ${page.keyset.limit + 1}`,
      sql,
    );
    return toPage(rows, page.keyset, endpointViewFromRow);
  }
}
