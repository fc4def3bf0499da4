import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Clock } from '../../../shared/domain/clock';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { isValidId } from '../../../shared/domain/ids';
import { CustomerInput } from '../domain/customer.aggregate';
import { CustomerRepository } from '../domain/customer.repository';

export class UpdateCustomerCommand {
  constructor(
    readonly tenantId: string,
    readonly customerId: string,
    readonly input: CustomerInput,
  ) {}
}

@CommandHandler(UpdateCustomerCommand)
export class UpdateCustomerHandler implements ICommandHandler<UpdateCustomerCommand, void> {
  constructor(
    private readonly customers: CustomerRepository,
    private readonly clock: Clock,
  ) {}

  async execute({ tenantId, customerId, input }: UpdateCustomerCommand): Promise<void> {
    const customer = isValidId(customerId, 'cus') ? await this.customers.findByIdForUpdate(tenantId, customerId) : null;
    if (!customer) throw new NotFoundError('Customer', customerId);
    const changesCurrency = input.currency !== undefined && input.currency?.toLowerCase() !== customer.currency;
    const canChangeCurrency = changesCurrency ? !(await this.customers.hasActivity(tenantId, customerId)) : true;
    customer.update(input, this.clock.now(), canChangeCurrency);
    await this.customers.save(customer);
  }
}
