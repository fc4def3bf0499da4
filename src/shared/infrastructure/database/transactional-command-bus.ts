import { Injectable } from '@nestjs/common';
import { CommandBus, ICommand } from '@nestjs/cqrs';
import { UnitOfWork } from './unit-of-work';

/**
 * The seam controllers use to run a command: each command runs in one transaction opened
 * here (infrastructure), never by the handler. Inside an idempotent request the transaction
 * is already open and the command joins it.
 */
@Injectable()
export class TransactionalCommandBus {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly uow: UnitOfWork,
  ) {}

  execute<R = unknown>(command: ICommand): Promise<R> {
    return this.uow.run(() => this.commandBus.execute(command) as Promise<R>);
  }
}
