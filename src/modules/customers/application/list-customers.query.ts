import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Page } from '../../../shared/domain/pagination';
import { CustomerListFilters, CustomerReadModel, CustomerView } from './customer-read-model';

export class ListCustomersQuery {
  constructor(
    readonly tenantId: string,
    readonly filters: CustomerListFilters,
  ) {}
}

@QueryHandler(ListCustomersQuery)
export class ListCustomersHandler implements IQueryHandler<ListCustomersQuery, Page<CustomerView>> {
  constructor(private readonly readModel: CustomerReadModel) {}

  execute({ tenantId, filters }: ListCustomersQuery): Promise<Page<CustomerView>> {
    return this.readModel.list(tenantId, filters);
  }
}
