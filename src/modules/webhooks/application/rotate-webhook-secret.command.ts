import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Clock } from '../../../shared/domain/clock';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { WebhookEndpointRepository } from '../domain/webhook-endpoint.repository';
import { endpointView, RotatedSecretView } from './webhook.views';

export class RotateWebhookSecretCommand {
  constructor(
    readonly tenantId: string,
    readonly id: string,
    readonly overlapSeconds?: number,
  ) {}
}

@Injectable()
@CommandHandler(RotateWebhookSecretCommand)
export class RotateWebhookSecretHandler implements ICommandHandler<RotateWebhookSecretCommand, RotatedSecretView> {
  constructor(
    private readonly repository: WebhookEndpointRepository,
    private readonly clock: Clock,
  ) {}

  async execute({ tenantId, id, overlapSeconds }: RotateWebhookSecretCommand): Promise<RotatedSecretView> {
    const endpoint = isValidId(id, 'wh') ? await this.repository.findByIdForUpdate(tenantId, id) : null;
    if (!endpoint) throw new NotFoundError('Webhook endpoint', id);
    endpoint.rotateSecret(this.clock.now(), overlapSeconds);
    await this.repository.save(endpoint);
    const snapshot = endpoint.snapshot();
    return {
      ...endpointView(snapshot),
      secret: snapshot.secret,
      previous_secret_expires_at: snapshot.previousSecretExpiresAt?.toISOString() ?? null,
    };
  }
}
