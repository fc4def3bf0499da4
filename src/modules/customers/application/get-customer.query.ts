import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CustomerDetailView, CustomerReadModel } from './customer-read-model';

export class GetCustomerQuery {
  constructor(
    readonly tenantId: string,
    readonly customerId: string,
    readonly asOf?: string,
  ) {}
}

@QueryHandler(GetCustomerQuery)
export class GetCustomerHandler implements IQueryHandler<GetCustomerQuery, CustomerDetailView> {
  constructor(private readonly readModel: CustomerReadModel) {}

  execute({ tenantId, customerId, asOf }: GetCustomerQuery): Promise<CustomerDetailView> {
    return this.readModel.get(tenantId, customerId, asOf);
  }
}
