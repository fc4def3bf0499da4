import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { WebhookReadModel } from './webhook-read-model';
import { EndpointView } from './webhook.views';

export class GetWebhookEndpointQuery {
  constructor(
    readonly tenantId: string,
    readonly id: string,
  ) {}
}

@Injectable()
@QueryHandler(GetWebhookEndpointQuery)
export class GetWebhookEndpointHandler implements IQueryHandler<GetWebhookEndpointQuery, EndpointView> {
  constructor(private readonly readModel: WebhookReadModel) {}

  async execute({ tenantId, id }: GetWebhookEndpointQuery): Promise<EndpointView> {
    const endpoint = isValidId(id, 'wh') ? await this.readModel.endpoint(tenantId, id) : null;
    if (!endpoint) throw new NotFoundError('Webhook endpoint', id);
    return endpoint;
  }
}
