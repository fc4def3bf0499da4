import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Page } from '../../../shared/domain/pagination';
import { InvoiceJson } from '../domain/invoice.snapshot';
import { InvoiceListFilters, InvoiceReadModel } from './invoice-read-model';

export class ListInvoicesQuery {
  constructor(
    readonly tenantId: string,
    readonly filters: InvoiceListFilters,
  ) {}
}

@QueryHandler(ListInvoicesQuery)
export class ListInvoicesHandler implements IQueryHandler<ListInvoicesQuery, Page<InvoiceJson>> {
  constructor(private readonly readModel: InvoiceReadModel) {}

  execute({ tenantId, filters }: ListInvoicesQuery): Promise<Page<InvoiceJson>> {
    return this.readModel.list(tenantId, filters);
  }
}
