import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { NotFoundError, ValidationError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { Page } from '../../../shared/domain/pagination';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../domain/event-types';
import { ListParams, WebhookReadModel } from './webhook-read-model';
import { DeliveryView } from './webhook.views';

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
  constructor(private readonly readModel: WebhookReadModel) {}

  async execute({ tenantId, endpointId, params }: ListWebhookDeliveriesQuery): Promise<Page<DeliveryView>> {
    if (!isValidId(endpointId, 'wh')) throw new NotFoundError('Webhook endpoint', endpointId);
    const statuses = params.status === undefined ? null : [...new Set(params.status.split(',').map((s) => s.trim()))];
    if (statuses?.some((s) => !STATUSES.includes(s))) {
      throw ValidationError.field('status', `status must be a comma-separated list of ${STATUSES.join(', ')}`);
    }
    if (params.event_type !== undefined && !TYPES.includes(params.event_type)) {
      throw ValidationError.field('event_type', `event_type must be one of ${TYPES.join(', ')}`);
    }
    const filters = { statuses: statuses?.sort() ?? null, eventType: params.event_type ?? null, eventId: params.event_id ?? null };
    const page = await this.readModel.deliveries(tenantId, endpointId, filters, params);
    if (!page) throw new NotFoundError('Webhook endpoint', endpointId);
    return page;
  }
}
