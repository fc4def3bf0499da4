import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Clock } from '../../../shared/domain/clock';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { WebhookEndpointRepository } from '../domain/webhook-endpoint.repository';
import { WebhookUrlPolicy } from '../domain/webhook-url-policy';
import { endpointView, EndpointView } from './webhook.views';

export interface WebhookEndpointChanges {
  url?: string;
  events?: string[];
  description?: string | null;
  status?: string;
}

export class UpdateWebhookEndpointCommand {
  constructor(
    readonly tenantId: string,
    readonly id: string,
    readonly changes: WebhookEndpointChanges,
  ) {}
}

@Injectable()
@CommandHandler(UpdateWebhookEndpointCommand)
export class UpdateWebhookEndpointHandler implements ICommandHandler<UpdateWebhookEndpointCommand, EndpointView> {
  constructor(
    private readonly repository: WebhookEndpointRepository,
    private readonly urlPolicy: WebhookUrlPolicy,
    private readonly clock: Clock,
  ) {}

  async execute({ tenantId, id, changes }: UpdateWebhookEndpointCommand): Promise<EndpointView> {
    const endpoint = isValidId(id, 'wh') ? await this.repository.findByIdForUpdate(tenantId, id) : null;
    if (!endpoint) throw new NotFoundError('Webhook endpoint', id);
    const url = changes.url === undefined ? undefined : await this.urlPolicy.assertAcceptable(changes.url);
    const before = endpoint.status;
    endpoint.update({ ...changes, url }, this.clock.now());
    await this.repository.save(endpoint);
    if (before === 'enabled' && endpoint.status === 'disabled') {
      await this.repository.failPendingDeliveries(tenantId, id, 'endpoint disabled');
    }
    return endpointView(endpoint.snapshot());
  }
}
