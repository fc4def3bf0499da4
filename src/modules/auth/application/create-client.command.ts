import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Clock } from '../../../shared/domain/clock';
import { NotFoundError, ValidationError } from '../../../shared/domain/domain-error';
import { newId } from '../../../shared/domain/ids';
import { ApiClientRepository } from '../domain/api-client.repository';
import { parseScopes, Scope } from '../domain/scopes';
import { SecretHasher } from '../domain/secret-hasher';

export class CreateClientCommand {
  constructor(
    readonly tenantId: string,
    readonly scopes?: string,
    readonly rateLimit?: number | null,
    readonly name?: string,
  ) {}
}

export interface CreatedClient {
  tenant_id: string;
  client_id: string;
  /** shown once; only its hash is stored */
  client_secret: string;
  scopes: Scope[];
}

@Injectable()
@CommandHandler(CreateClientCommand)
export class CreateClientHandler implements ICommandHandler<CreateClientCommand, CreatedClient> {
  constructor(
    private readonly repository: ApiClientRepository,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
  ) {}

  async execute(command: CreateClientCommand): Promise<CreatedClient> {
    if (!(await this.repository.findTenant(command.tenantId))) throw new NotFoundError('Tenant', command.tenantId);
    const scopes = parseScopes(command.scopes);
    if (command.rateLimit != null && (!Number.isInteger(command.rateLimit) || command.rateLimit < 1)) {
      throw ValidationError.field('rate_limit', 'rate limit must be a positive integer');
    }
    const clientId = newId('cli');
    const secret = `sk_${randomBytes(32).toString('base64url')}`;
    await this.repository.insertClient({
      id: clientId,
      tenantId: command.tenantId,
      name: command.name ?? null,
      secretHash: await this.hasher.hash(secret),
      scopes,
      rateLimit: command.rateLimit ?? null,
      revokedAt: null,
      createdAt: this.clock.now(),
    });
    return { tenant_id: command.tenantId, client_id: clientId, client_secret: secret, scopes };
  }
}
