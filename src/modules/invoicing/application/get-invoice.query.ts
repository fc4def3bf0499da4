import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { InvoiceDetailView, InvoiceReadModel } from './invoice-read-model';

export class GetInvoiceQuery {
  constructor(
    readonly tenantId: string,
    readonly invoiceId: string,
  ) {}
}

@QueryHandler(GetInvoiceQuery)
export class GetInvoiceHandler implements IQueryHandler<GetInvoiceQuery, InvoiceDetailView> {
  constructor(private readonly readModel: InvoiceReadModel) {}

  execute({ tenantId, invoiceId }: GetInvoiceQuery): Promise<InvoiceDetailView> {
    return this.readModel.get(tenantId, invoiceId);
  }
}
