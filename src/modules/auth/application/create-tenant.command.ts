import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Clock } from '../../../shared/domain/clock';
import { ValidationError } from '../../../shared/domain/domain-error';
import { newId } from '../../../shared/domain/ids';
import { ApiClientRepository } from '../domain/api-client.repository';
import { CreateClientCommand, CreatedClient, CreateClientHandler } from './create-client.command';

export class CreateTenantCommand {
  constructor(
    readonly name: string,
    readonly scopes?: string,
    readonly rateLimit?: number | null,
  ) {}
}

/** Creates a tenant together with its first API client. */
@CommandHandler(CreateTenantCommand)
export class CreateTenantHandler implements ICommandHandler<CreateTenantCommand, CreatedClient> {
  constructor(
    private readonly repository: ApiClientRepository,
    private readonly clients: CreateClientHandler,
    private readonly clock: Clock,
  ) {}

  async execute(command: CreateTenantCommand): Promise<CreatedClient> {
    const name = command.name?.trim();
    if (!name) throw ValidationError.field('name', 'name is required');
    const tenantId = newId('ten');
    await this.repository.insertTenant({ id: tenantId, name, createdAt: this.clock.now() });
    return this.clients.execute(new CreateClientCommand(tenantId, command.scopes, command.rateLimit));
  }
}
