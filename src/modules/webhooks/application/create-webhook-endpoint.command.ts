import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Clock } from '../../../shared/domain/clock';
import { newId } from '../../../shared/domain/ids';
import { ConflictError } from '../../../shared/domain/domain-error';
import { MAX_ENDPOINTS_PER_TENANT, WebhookEndpoint } from '../domain/webhook-endpoint.aggregate';
import { WebhookEndpointRepository } from '../domain/webhook-endpoint.repository';
import { WebhookUrlPolicy } from '../domain/webhook-url-policy';
import { endpointView, EndpointWithSecretView } from './webhook.views';

export class CreateWebhookEndpointCommand {
  constructor(
    readonly tenantId: string,
    readonly url: string,
    readonly events: string[],
    readonly description: string | null,
  ) {}
}

@Injectable()
@CommandHandler(CreateWebhookEndpointCommand)
export class CreateWebhookEndpointHandler implements ICommandHandler<CreateWebhookEndpointCommand, EndpointWithSecretView> {
  constructor(
    private readonly repository: WebhookEndpointRepository,
    private readonly urlPolicy: WebhookUrlPolicy,
    private readonly clock: Clock,
  ) {}

  async execute(command: CreateWebhookEndpointCommand): Promise<EndpointWithSecretView> {
    // The URL check may wait on DNS: done before the per-tenant lock is taken.
    const url = await this.urlPolicy.assertAcceptable(command.url);
    if ((await this.repository.countForCreation(command.tenantId)) >= MAX_ENDPOINTS_PER_TENANT) {
      throw new ConflictError(`A tenant may have at most ${MAX_ENDPOINTS_PER_TENANT} webhook endpoints; delete one to add another.`);
    }
    const endpoint = WebhookEndpoint.create({
      id: newId('wh'),
      tenantId: command.tenantId,
      url,
      events: command.events,
      description: command.description,
      now: this.clock.now(),
    });
    await this.repository.save(endpoint);
    return { ...endpointView(endpoint.snapshot()), secret: endpoint.secret };
  }
}
