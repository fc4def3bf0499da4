import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Clock } from '../../../shared/domain/clock';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { ApiClientRepository } from '../domain/api-client.repository';

export class RevokeClientCommand {
  constructor(readonly clientId: string) {}
}

/**
 * Revokes a client: new tokens are refused at once; issued ones as soon as every instance has
 * dropped the client from its cache, which a trigger's NOTIFY at commit tells them to (ADR 35).
 */
@CommandHandler(RevokeClientCommand)
export class RevokeClientHandler implements ICommandHandler<RevokeClientCommand, { client_id: string; revoked: boolean }> {
  constructor(
    private readonly repository: ApiClientRepository,
    private readonly clock: Clock,
  ) {}

  async execute(command: RevokeClientCommand): Promise<{ client_id: string; revoked: boolean }> {
    if (!(await this.repository.findClient(command.clientId))) throw new NotFoundError('Client', command.clientId);
    await this.repository.revokeClient(command.clientId, this.clock.now());
    return { client_id: command.clientId, revoked: true };
  }
}
