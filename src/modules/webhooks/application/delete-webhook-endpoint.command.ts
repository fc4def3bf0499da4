import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { WebhookEndpointRepository } from '../domain/webhook-endpoint.repository';

/** Deletes an endpoint with its delivery history; nothing more is sent to it. */
export class DeleteWebhookEndpointCommand {
  constructor(
    readonly tenantId: string,
    readonly id: string,
  ) {}
}

@Injectable()
@CommandHandler(DeleteWebhookEndpointCommand)
export class DeleteWebhookEndpointHandler implements ICommandHandler<DeleteWebhookEndpointCommand, void> {
  constructor(private readonly repository: WebhookEndpointRepository) {}

  async execute({ tenantId, id }: DeleteWebhookEndpointCommand): Promise<void> {
    if (!isValidId(id, 'wh') || !(await this.repository.delete(tenantId, id))) throw new NotFoundError('Webhook endpoint', id);
  }
}
