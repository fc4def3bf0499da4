import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Page } from '../../../shared/domain/pagination';
import { parseEndpointStatus } from '../domain/webhook-endpoint.aggregate';
import { ListParams, WebhookReadModel } from './webhook-read-model';
import { EndpointView } from './webhook.views';

export class ListWebhookEndpointsQuery {
  constructor(
    readonly tenantId: string,
    readonly params: ListParams & { status?: string },
  ) {}
}

@Injectable()
@QueryHandler(ListWebhookEndpointsQuery)
export class ListWebhookEndpointsHandler implements IQueryHandler<ListWebhookEndpointsQuery, Page<EndpointView>> {
  constructor(private readonly readModel: WebhookReadModel) {}

  execute({ tenantId, params }: ListWebhookEndpointsQuery): Promise<Page<EndpointView>> {
    const status = params.status === undefined ? undefined : parseEndpointStatus(params.status);
    return this.readModel.endpoints(tenantId, status, params);
  }
}
