import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Clock } from '../../../shared/domain/clock';
import { InvalidStateError, NotFoundError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { TEST_EVENT_TYPE } from '../domain/event-types';
import { WebhookEndpointRepository } from '../domain/webhook-endpoint.repository';
import { WebhookDeliveryQueue } from './webhook-delivery.queue';
import { DeliveryView, endpointView } from './webhook.views';

/**
 * Sends a `webhook.test` event to one endpoint through the normal delivery path (outbox row,
 * delivery row, relay, signature, retries), whatever the endpoint subscribed to.
 */
export class SendTestEventCommand {
  constructor(
    readonly tenantId: string,
    readonly id: string,
  ) {}
}

@Injectable()
@CommandHandler(SendTestEventCommand)
export class SendTestEventHandler implements ICommandHandler<SendTestEventCommand, DeliveryView> {
  constructor(
    private readonly repository: WebhookEndpointRepository,
    private readonly queue: WebhookDeliveryQueue,
    private readonly clock: Clock,
  ) {}

  async execute({ tenantId, id }: SendTestEventCommand): Promise<DeliveryView> {
    const endpoint = isValidId(id, 'wh') ? await this.repository.findByIdForUpdate(tenantId, id) : null;
    if (!endpoint) throw new NotFoundError('Webhook endpoint', id);
    if (endpoint.status !== 'enabled') throw new InvalidStateError('The webhook endpoint is disabled; enable it before sending a test event.');
    return this.queue.enqueueForEndpoint(id, {
      tenantId,
      type: TEST_EVENT_TYPE,
      aggregateType: 'webhook_endpoint',
      aggregateId: id,
      data: { object: { ...endpointView(endpoint.snapshot()) } },
      occurredAt: this.clock.now(),
    });
  }
}
