import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { StatementDocument, StatementReadModel } from '../infrastructure/statement-read-model';

export class GetCustomerStatementQuery {
  constructor(
    readonly tenantId: string,
    readonly customerId: string,
    readonly from?: string,
    readonly to?: string,
  ) {}
}

@QueryHandler(GetCustomerStatementQuery)
export class GetCustomerStatementHandler implements IQueryHandler<GetCustomerStatementQuery, StatementDocument> {
  constructor(private readonly readModel: StatementReadModel) {}

  execute({ tenantId, customerId, from, to }: GetCustomerStatementQuery): Promise<StatementDocument> {
    return this.readModel.get(tenantId, customerId, from, to);
  }
}
