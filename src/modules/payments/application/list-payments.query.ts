import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Page } from '../../../shared/domain/pagination';
import { PaymentJson } from '../domain/payment.snapshot';
import { ListPaymentsFilters, PaymentReadModel } from './payment-read-model';

export class ListPaymentsQuery {
  constructor(
    readonly tenantId: string,
    readonly filters: ListPaymentsFilters,
  ) {}
}

@QueryHandler(ListPaymentsQuery)
export class ListPaymentsHandler implements IQueryHandler<ListPaymentsQuery, Page<PaymentJson>> {
  constructor(private readonly readModel: PaymentReadModel) {}

  execute({ tenantId, filters }: ListPaymentsQuery): Promise<Page<PaymentJson>> {
    return this.readModel.list(tenantId, filters);
  }
}
