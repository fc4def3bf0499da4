import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Clock } from '../../../shared/domain/clock';
import { Customer, CustomerInput } from '../domain/customer.aggregate';
import { CustomerRepository } from '../domain/customer.repository';

export class CreateCustomerCommand {
  constructor(
    readonly tenantId: string,
    readonly input: CustomerInput,
  ) {}
}

/** Returns the new customer's id. */
@CommandHandler(CreateCustomerCommand)
export class CreateCustomerHandler implements ICommandHandler<CreateCustomerCommand, string> {
  constructor(
    private readonly customers: CustomerRepository,
    private readonly clock: Clock,
  ) {}

  async execute({ tenantId, input }: CreateCustomerCommand): Promise<string> {
    const customer = Customer.create(tenantId, input, this.clock.now());
    await this.customers.save(customer);
    return customer.id;
  }
}
