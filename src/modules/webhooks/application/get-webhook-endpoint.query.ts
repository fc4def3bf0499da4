import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { ENDPOINT_COLUMNS, EndpointView, endpointViewFromRow } from './webhook.views';

export class GetWebhookEndpointQuery {
  constructor(
    readonly tenantId: string,
    readonly id: string,
  ) {}
}

@Injectable()
@QueryHandler(GetWebhookEndpointQuery)
export class GetWebhookEndpointHandler implements IQueryHandler<GetWebhookEndpointQuery, EndpointView> {
  constructor(private readonly uow: UnitOfWork) {}

  async execute({ tenantId, id }: GetWebhookEndpointQuery): Promise<EndpointView> {
    if (!isValidId(id, 'wh')) throw new NotFoundError('Webhook endpoint', id);
    const [row] = await this.uow.query(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
    if (!row) throw new NotFoundError('Webhook endpoint', id);
    return endpointViewFromRow(row);
  }
}
