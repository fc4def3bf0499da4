import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { StatementReading, StatementReadModel } from './statement-read-model';

export class GetCustomerStatementQuery {
  /** `maxLines`: the most lines the representation asked for can hold (a PDF); more is a 400. */
  constructor(
    readonly tenantId: string,
    readonly customerId: string,
    readonly from?: string,
    readonly to?: string,
    readonly maxLines?: { lines: number; format: string },
  ) {}
}

/** Opens the statement; the caller reads its lines (from a cursor when there are many) and must close it. */
@QueryHandler(GetCustomerStatementQuery)
export class GetCustomerStatementHandler implements IQueryHandler<GetCustomerStatementQuery, StatementReading> {
  constructor(private readonly readModel: StatementReadModel) {}

  execute({ tenantId, customerId, from, to, maxLines }: GetCustomerStatementQuery): Promise<StatementReading> {
    return this.readModel.open(tenantId, customerId, from, to, maxLines);
  }
}
